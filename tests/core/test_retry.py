"""Behaviour of retry_with_backoff and classify_error_message (reference section 10, items 50-51)."""

from __future__ import annotations

import asyncio
import email.utils
import inspect
import time

import pytest
from sessionkit import SleepRecorder

from amplifier_core.llm_errors import (
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
from amplifier_core.utils import RetryConfig, classify_error_message, retry_with_backoff
from amplifier_core.utils.retry import compute_delay, parse_retry_after, parse_should_retry


@pytest.fixture
def slept() -> SleepRecorder:
    """Pass as ``sleep=``: records requested sleeps instead of waiting."""
    return SleepRecorder()


def failing(errors: list[BaseException], result: str = "ok"):
    calls: list[int] = []

    async def operation() -> str:
        calls.append(1)
        if errors:
            raise errors.pop(0)
        return result

    return operation, calls


def test_retry_config_defaults() -> None:
    config = RetryConfig()
    assert (config.max_retries, config.min_delay, config.max_delay, config.jitter,
            config.backoff_multiplier, config.honor_retry_after) == (3, 1.0, 60.0, 0.2, 2.0, True)


async def test_retry_backoff_no_retry_for_non_retryable_error(slept: list[float]) -> None:
    operation, calls = failing([AuthenticationError("bad key")])
    with pytest.raises(AuthenticationError):
        await retry_with_backoff(operation, RetryConfig(jitter=0), sleep=slept)
    assert len(calls) == 1 and slept == []


async def test_retry_backoff_no_retry_for_non_llm_exception(slept: list[float]) -> None:
    operation, calls = failing([RuntimeError("bug")])
    with pytest.raises(RuntimeError):
        await retry_with_backoff(operation, sleep=slept)
    assert len(calls) == 1 and slept == []


async def test_retry_backoff_makes_max_retries_plus_one_calls_then_reraises_last(slept: list[float]) -> None:
    errors = [RateLimitError(f"e{i}") for i in range(5)]
    operation, calls = failing(list(errors))
    with pytest.raises(RateLimitError, match="e2"):
        await retry_with_backoff(operation, RetryConfig(max_retries=2, jitter=0), sleep=slept)
    assert len(calls) == 3
    assert slept == [1.0, 2.0]


async def test_retry_backoff_zero_retries_means_single_attempt(slept: list[float]) -> None:
    operation, calls = failing([RateLimitError("x")])
    with pytest.raises(RateLimitError):
        await retry_with_backoff(operation, RetryConfig(max_retries=0), sleep=slept)
    assert len(calls) == 1


async def test_retry_backoff_succeeds_after_transient_errors() -> None:
    operation, calls = failing([ProviderUnavailableError("503"), RateLimitError("429")], result="done")
    assert await retry_with_backoff(operation, RetryConfig(min_delay=0, jitter=0)) == "done"
    assert len(calls) == 3


async def test_retry_backoff_delay_capped_at_max_delay(slept: list[float]) -> None:
    operation, _ = failing([RateLimitError("x") for _ in range(4)])
    await retry_with_backoff(operation, RetryConfig(max_retries=4, min_delay=10, max_delay=25, jitter=0),
                             sleep=slept)
    assert slept == [10, 20, 25, 25]


def test_retry_after_is_a_floor_even_beyond_max_delay() -> None:
    config = RetryConfig(max_delay=5, jitter=0)
    assert compute_delay(0, RateLimitError("x", retry_after=30), config) == 30
    assert compute_delay(0, RateLimitError("x", retry_after=0.1), config) == 1.0
    jittery = RetryConfig(max_delay=5, jitter=0.5)
    assert all(compute_delay(0, RateLimitError("x", retry_after=30), jittery) >= 30 for _ in range(50))


def test_retry_after_ignored_when_not_honoured() -> None:
    config = RetryConfig(jitter=0, honor_retry_after=False)
    assert compute_delay(0, RateLimitError("x", retry_after=30), config) == 1.0


def test_delay_multiplier_applied_after_the_cap() -> None:
    config = RetryConfig(min_delay=10, max_delay=10, jitter=0)
    assert compute_delay(3, ProviderUnavailableError("x", delay_multiplier=3.0), config) == 30


def test_jitter_stays_within_bounds_and_never_negative() -> None:
    config = RetryConfig(min_delay=1, jitter=0.2)
    delays = [compute_delay(0, RateLimitError("x"), config) for _ in range(200)]
    assert all(0.8 <= delay <= 1.2 for delay in delays)
    wild = RetryConfig(min_delay=1, jitter=5)
    assert all(compute_delay(0, RateLimitError("x"), wild) >= 0 for _ in range(50))


async def test_on_retry_receives_one_based_attempt_delay_and_error(slept: list[float]) -> None:
    errors = [RateLimitError("a"), RateLimitError("b")]
    seen: list[tuple[int, float, str]] = []

    async def on_retry(attempt: int, delay: float, error: LLMError) -> None:
        seen.append((attempt, delay, str(error)))

    operation, _ = failing(list(errors))
    await retry_with_backoff(operation, RetryConfig(jitter=0), on_retry=on_retry, sleep=slept)
    assert seen == [(1, 1.0, "a"), (2, 2.0, "b")]
    assert slept == [1.0, 2.0]


async def test_retry_with_none_config_uses_defaults(slept: list[float]) -> None:
    operation, calls = failing([RateLimitError("x") for _ in range(10)])
    with pytest.raises(RateLimitError):
        await retry_with_backoff(operation, None, sleep=slept)
    assert len(calls) == 4



def test_retry_waits_with_asyncio_sleep_unless_given_another_sleep() -> None:
    assert inspect.signature(retry_with_backoff).parameters["sleep"].default is asyncio.sleep


# -- retry hints in HTTP headers (moved here from provider-anthropic, which both providers now share) -------
def test_retry_after_ms_wins_over_retry_after_seconds():
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25


def test_retry_after_accepts_seconds_and_http_dates():
    assert parse_retry_after({"retry-after": "2.5"}) == 2.5
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= parse_retry_after({"retry-after": future}) <= 31


def test_missing_or_garbage_retry_after_is_none():
    assert parse_retry_after({}) is None
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after(None) is None


def test_x_should_retry_header_is_the_servers_verdict_or_none():
    assert parse_should_retry({"x-should-retry": "TRUE"}) is True
    assert parse_should_retry({"x-should-retry": "false"}) is False
    assert parse_should_retry({"x-should-retry": "maybe"}) is None
    assert parse_should_retry({}) is None and parse_should_retry(None) is None


@pytest.mark.parametrize(
    "status, message, expected",
    [
        (401, "rate limit", AuthenticationError),
        (403, "", AccessDeniedError),
        (404, "", NotFoundError),
        (413, "", ContextLengthError),
        (429, "authentication", RateLimitError),
        (500, "", ProviderUnavailableError),
        (529, "overloaded", ProviderUnavailableError),
        (400, "maximum context exceeded", ContextLengthError),
        (422, "whatever", InvalidRequestError),
        (400, "bad", InvalidRequestError),
        (None, "Too many tokens in prompt", ContextLengthError),
        (None, "Too Many Requests", RateLimitError),
        (None, "invalid API key", AuthenticationError),
        (None, "Unauthorized", AuthenticationError),
        (None, "model not found", NotFoundError),
        (None, "blocked by safety system", ContentFilterError),
        (None, "context length rate limit", ContextLengthError),
        (None, "something odd", LLMError),
        (418, "teapot", LLMError),
    ],
)
def test_classify_error_message_status_priority_and_keywords(
    status: int | None, message: str, expected: type[LLMError]
) -> None:
    assert classify_error_message(message, status_code=status) is expected
