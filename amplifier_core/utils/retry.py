"""Exponential backoff for retryable LLM errors, the retry hints HTTP APIs send, and classification of raw
error messages."""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
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


@dataclass
class RetryConfig:
    max_retries: int = 3
    min_delay: float = 1.0
    max_delay: float = 60.0
    jitter: float = 0.2
    backoff_multiplier: float = 2.0
    honor_retry_after: bool = True


def compute_delay(attempt: int, error: LLMError, config: RetryConfig) -> float:
    """Delay before retry ``attempt`` (0-based). ``retry_after`` is a floor and may exceed ``max_delay``."""
    delay = min(config.min_delay * config.backoff_multiplier**attempt, config.max_delay)
    if error.delay_multiplier != 1.0:
        delay *= error.delay_multiplier
    if config.honor_retry_after and error.retry_after is not None:
        delay = max(delay, error.retry_after)
    if config.jitter:
        delay += random.uniform(-config.jitter * delay, config.jitter * delay)
        if config.honor_retry_after and error.retry_after is not None:
            delay = max(delay, error.retry_after)
    return max(delay, 0.0)


async def retry_with_backoff(
    operation: Callable[[], Awaitable[T]],
    config: RetryConfig | None = None,
    *,
    on_retry: Callable[[int, float, LLMError], Awaitable[None]] | None = None,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
) -> T:
    """Run ``operation``; retry only ``LLMError``s marked retryable, up to ``max_retries`` more times.

    ``sleep`` waits out each backoff delay; a test passes a recorder to see the delays without waiting.
    """
    config = config or RetryConfig()
    attempt = 0
    while True:
        try:
            return await operation()
        except LLMError as error:
            if not error.retryable or attempt >= config.max_retries:
                raise
            delay = compute_delay(attempt, error, config)
            attempt += 1
            if on_retry is not None:
                await on_retry(attempt, delay, error)
            await sleep(delay)


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
