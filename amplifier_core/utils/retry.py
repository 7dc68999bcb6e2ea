"""Exponential backoff for retryable LLM errors, the retry hints HTTP APIs send, and classification of raw
error messages."""

from __future__ import annotations

import asyncio
import email.utils
import math
import random
import time
import warnings
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..llm_errors import (
    AccessDeniedError,
    AuthenticationError,
    ContentFilterError,
    ContextLengthError,
    InvalidRequestError,
    LLMError,
    NotFoundError,
    ProviderUnavailableError,
    RateLimitError,
)

T = TypeVar("T")


_DEFAULT_JITTER = 0.2


class RetryConfig:
    """How often and how patiently to retry, with 2.0.2's names and deprecated aliases.

    ``jitter`` takes a bool (on means +/-20%); a float is still accepted as the fraction (deprecated
    upstream). ``min_delay``/``backoff_multiplier`` are deprecated aliases that win over
    ``initial_delay``/``backoff_factor`` when given. Read-only once built, like 2.0.2's.
    """

    __slots__ = ("_backoff_factor", "_honor_retry_after", "_initial_delay", "_jitter", "_max_delay", "_max_retries")

    def __init__(
        self,
        max_retries: int = 3,
        initial_delay: float = 1.0,
        max_delay: float = 60.0,
        backoff_factor: float = 2.0,
        jitter: bool | float | None = None,
        honor_retry_after: bool = True,
        min_delay: float | None = None,
        backoff_multiplier: float | None = None,
    ) -> None:
        if min_delay is not None:
            warnings.warn("min_delay is deprecated, use initial_delay", DeprecationWarning, stacklevel=2)
            initial_delay = min_delay
        if backoff_multiplier is not None:
            warnings.warn("backoff_multiplier is deprecated, use backoff_factor", DeprecationWarning, stacklevel=2)
            backoff_factor = backoff_multiplier
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"RetryConfig.max_retries must be a whole number >= 0, got {max_retries!r}")
        for name, value in (("initial_delay", initial_delay), ("max_delay", max_delay),
                            ("backoff_factor", backoff_factor)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"RetryConfig.{name} must be a number >= 0, got {value!r}")
        if jitter is None or jitter is True:
            jitter_fraction = _DEFAULT_JITTER
        elif jitter is False:
            jitter_fraction = 0.0
        elif isinstance(jitter, (int, float)) and jitter >= 0:
            warnings.warn("passing a float for jitter is deprecated, use a bool", DeprecationWarning, stacklevel=2)
            jitter_fraction = float(jitter)
        else:
            raise ValueError(f"RetryConfig.jitter must be a bool, got {jitter!r}")
        self._max_retries = max_retries
        self._initial_delay = float(initial_delay)
        self._max_delay = float(max_delay)
        self._backoff_factor = float(backoff_factor)
        self._jitter = jitter_fraction
        self._honor_retry_after = bool(honor_retry_after)

    @property
    def max_retries(self) -> int:
        """Retries after the first call: total calls are ``max_retries + 1``."""
        return self._max_retries

    @property
    def initial_delay(self) -> float:
        return self._initial_delay

    @property
    def max_delay(self) -> float:
        return self._max_delay

    @property
    def backoff_factor(self) -> float:
        return self._backoff_factor

    @property
    def jitter(self) -> float:
        """The jitter fraction: 0.2 when on (the default), 0.0 when off."""
        return self._jitter

    @property
    def honor_retry_after(self) -> bool:
        return self._honor_retry_after

    @property
    def min_delay(self) -> float:
        """Deprecated alias of ``initial_delay``."""
        return self._initial_delay

    @property
    def backoff_multiplier(self) -> float:
        """Deprecated alias of ``backoff_factor``."""
        return self._backoff_factor

    def _key(self) -> tuple[Any, ...]:
        return (self._max_retries, self._initial_delay, self._max_delay, self._backoff_factor, self._jitter,
                self._honor_retry_after)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RetryConfig) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"RetryConfig(max_retries={self._max_retries}, initial_delay={self._initial_delay}, "
                f"max_delay={self._max_delay}, backoff_factor={self._backoff_factor}, jitter={self._jitter}, "
                f"honor_retry_after={self._honor_retry_after})")


def compute_delay(
    config: RetryConfig, attempt: int, retry_after: float | None = None, delay_multiplier: float | None = None
) -> float:
    """Delay before retry ``attempt`` (0-based), with 2.0.2's order of steps.

    Exponential backoff capped at ``max_delay``; then ``delay_multiplier`` (ignored unless finite and > 0,
    so it may exceed the cap); then the server's ``retry_after`` as a floor (when honoured; it too may
    exceed the cap); then jitter. Unlike 2.0.2, jitter never takes the delay below ``retry_after``:
    the server said how long to wait.
    """
    delay = min(config.initial_delay * config.backoff_factor**attempt, config.max_delay)
    if delay_multiplier is not None and math.isfinite(delay_multiplier) and delay_multiplier > 0:
        delay *= delay_multiplier
    floor = retry_after if config.honor_retry_after and retry_after is not None else 0.0
    delay = max(delay, floor)
    if config.jitter:
        delay += random.uniform(-config.jitter * delay, config.jitter * delay)
        delay = max(delay, floor)
    return max(delay, 0.0)


async def retry_with_backoff(
    operation: Callable[[], Awaitable[T]],
    config: RetryConfig | None = None,
    *,
    on_retry: Callable[[int, float, LLMError], Awaitable[None]] | None = None,
    sleep: Callable[[float], Awaitable[Any]] | None = None,
) -> T:
    """Run ``operation``; retry only ``LLMError``s marked retryable, up to ``max_retries`` more times.

    ``sleep`` waits out each backoff delay (a test passes a recorder to see the delays without waiting). Without
    it the wait is ``asyncio.sleep`` looked up at the moment of waiting, as 2.0.2 does, so a test that patches
    ``asyncio.sleep`` sees (and counts) every wait.
    """
    config = config or RetryConfig()
    attempt = 0
    while True:
        try:
            return await operation()
        except LLMError as error:
            if not error.retryable or attempt >= config.max_retries:
                raise
            delay = compute_delay(config, attempt, retry_after=error.retry_after,
                                  delay_multiplier=getattr(error, "delay_multiplier", None))
            attempt += 1
            if on_retry is not None:
                await on_retry(attempt, delay, error)
            await (sleep(delay) if sleep is not None else asyncio.sleep(delay))


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date); None if absent."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        return None if parsed is None else max(email.utils.mktime_tz(parsed) - time.time(), 0.0)


def parse_should_retry(headers: Any) -> bool | None:
    """The server's own verdict from ``x-should-retry`` (``true``/``false``); None when it gave none."""
    value = ((headers.get("x-should-retry") if headers is not None else None) or "").lower()
    return True if value == "true" else False if value == "false" else None


def classify_error_message(
    message: str, *, status_code: int | None = None, provider: str | None = None
) -> type[LLMError]:
    """Pick the LLMError class for a raw error: the HTTP status wins, then keywords in the message."""
    by_status: dict[int, type[LLMError]] = {
        401: AuthenticationError,
        403: AccessDeniedError,
        404: NotFoundError,
        413: ContextLengthError,
        429: RateLimitError,
    }
    if status_code in by_status:
        return by_status[status_code]
    if status_code is not None and status_code >= 500:
        return ProviderUnavailableError
    text = message.lower()
    rules: list[tuple[tuple[str, ...], type[LLMError]]] = [
        (("context length", "too many tokens", "maximum context"), ContextLengthError),
        (("rate limit", "too many requests"), RateLimitError),
        (("authentication", "api key", "unauthorized"), AuthenticationError),
        (("not found",), NotFoundError),
        (("content filter", "safety", "blocked"), ContentFilterError),
    ]
    for keywords, error_class in rules:
        if any(keyword in text for keyword in keywords):
            return error_class
    if status_code in (400, 422):
        return InvalidRequestError
    return LLMError
