"""Behaviour of retry_with_backoff and classify_error_message (reference section 10, items 50-51)."""

from __future__ import annotations

import asyncio
import email.utils
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
    assert (config.max_retries, config.initial_delay, config.max_delay, config.backoff_factor, config.jitter,
            config.honor_retry_after) == (3, 1.0, 60.0, 2.0, 0.2, True)
    assert (config.min_delay, config.backoff_multiplier) == (1.0, 2.0)


def test_retry_config_takes_upstream_names_positionally_and_by_keyword() -> None:
    config = RetryConfig(5, 0.5, 30.0, 3.0, False, False)
    assert (config.max_retries, config.initial_delay, config.max_delay, config.backoff_factor, config.jitter,
            config.honor_retry_after) == (5, 0.5, 30.0, 3.0, 0.0, False)
    assert RetryConfig(initial_delay=0.25, backoff_factor=4.0) == RetryConfig(3, 0.25, 60.0, 4.0)
    assert RetryConfig(initial_delay=0.25) != RetryConfig(initial_delay=0.5)


def test_deprecated_aliases_warn_and_win_over_new_names() -> None:
    with pytest.warns(DeprecationWarning, match="min_delay"):
        config = RetryConfig(initial_delay=1.0, min_delay=2.0)
    assert config.initial_delay == 2.0 and config.min_delay == 2.0
    with pytest.warns(DeprecationWarning, match="backoff_multiplier"):
        assert RetryConfig(backoff_multiplier=3.0).backoff_factor == 3.0


def test_jitter_bool_switches_the_default_fraction() -> None:
    assert RetryConfig(jitter=True).jitter == 0.2
    assert RetryConfig(jitter=None).jitter == 0.2
    assert RetryConfig(jitter=False).jitter == 0.0
    assert {compute_delay(RetryConfig(jitter=False), 1) for _ in range(20)} == {2.0}


def test_retry_config_is_read_only_and_rejects_nonsense() -> None:
    config = RetryConfig()
    with pytest.raises(AttributeError):
        config.max_retries = 7  # type: ignore[misc]
    with pytest.raises(ValueError, match="max_retries"):
        RetryConfig(max_retries=-1)
    with pytest.raises(ValueError, match="jitter"):
        RetryConfig(jitter="lots")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unexpected keyword"):
        RetryConfig(min_retry_delay=1)  # type: ignore[call-arg]


def test_non_finite_or_non_positive_delay_multiplier_is_ignored() -> None:
    config = RetryConfig(jitter=False)
    assert compute_delay(config, 0, delay_multiplier=float("nan")) == 1.0
    assert compute_delay(config, 0, delay_multiplier=0) == 1.0
    assert compute_delay(config, 0, delay_multiplier=-2) == 1.0


async def test_retry_backoff_no_retry_for_non_retryable_error(slept: list[float]) -> None:
    operation, calls = failing([AuthenticationError("bad key")])
    with pytest.raises(AuthenticationError):
        await retry_with_backoff(operation, RetryConfig(jitter=False), sleep=slept)
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
        await retry_with_backoff(operation, RetryConfig(max_retries=2, jitter=False), sleep=slept)
    assert len(calls) == 3
    assert slept == [1.0, 2.0]


async def test_retry_backoff_zero_retries_means_single_attempt(slept: list[float]) -> None:
    operation, calls = failing([RateLimitError("x")])
    with pytest.raises(RateLimitError):
        await retry_with_backoff(operation, RetryConfig(max_retries=0), sleep=slept)
    assert len(calls) == 1


async def test_retry_backoff_succeeds_after_transient_errors() -> None:
    operation, calls = failing([ProviderUnavailableError("503"), RateLimitError("429")], result="done")
    assert await retry_with_backoff(operation, RetryConfig(initial_delay=0, jitter=False)) == "done"
    assert len(calls) == 3


async def test_retry_backoff_delay_capped_at_max_delay(slept: list[float]) -> None:
    operation, _ = failing([RateLimitError("x") for _ in range(4)])
    await retry_with_backoff(operation, RetryConfig(max_retries=4, initial_delay=10, max_delay=25, jitter=False),
                             sleep=slept)
    assert slept == [10, 20, 25, 25]


def test_retry_after_is_a_floor_even_beyond_max_delay() -> None:
    config = RetryConfig(max_delay=5, jitter=False)
    assert compute_delay(config, 0, retry_after=30) == 30
    assert compute_delay(config, 0, retry_after=0.1) == 1.0
    jittery = RetryConfig(max_delay=5, jitter=True)
    assert all(compute_delay(jittery, 0, retry_after=30) >= 30 for _ in range(50))


def test_retry_after_ignored_when_not_honoured() -> None:
    config = RetryConfig(jitter=False, honor_retry_after=False)
    assert compute_delay(config, 0, retry_after=30) == 1.0


def test_delay_multiplier_applied_after_the_cap() -> None:
    config = RetryConfig(initial_delay=10, max_delay=10, jitter=False)
    assert compute_delay(config, 3, delay_multiplier=3.0) == 30


def test_jitter_stays_within_bounds_and_never_negative() -> None:
    config = RetryConfig(initial_delay=1, jitter=True)
    delays = [compute_delay(config, 0) for _ in range(200)]
    assert all(0.8 <= delay <= 1.2 for delay in delays)
    with pytest.warns(DeprecationWarning, match="jitter"):
        wild = RetryConfig(initial_delay=1, jitter=5.0)
    assert all(compute_delay(wild, 0) >= 0 for _ in range(50))


async def test_on_retry_receives_one_based_attempt_delay_and_error(slept: list[float]) -> None:
    errors = [RateLimitError("a"), RateLimitError("b")]
    seen: list[tuple[int, float, str]] = []

    async def on_retry(attempt: int, delay: float, error: LLMError) -> None:
        seen.append((attempt, delay, str(error)))

    operation, _ = failing(list(errors))
    await retry_with_backoff(operation, RetryConfig(jitter=False), on_retry=on_retry, sleep=slept)
    assert seen == [(1, 1.0, "a"), (2, 2.0, "b")]
    assert slept == [1.0, 2.0]


async def test_retry_with_none_config_uses_defaults(slept: list[float]) -> None:
    operation, calls = failing([RateLimitError("x") for _ in range(10)])
    with pytest.raises(RateLimitError):
        await retry_with_backoff(operation, None, sleep=slept)
    assert len(calls) == 4



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


async def test_without_a_sleep_argument_the_waits_go_through_asyncio_sleep_patched_at_call_time(monkeypatch) -> None:
    """Upstream provider tests patch ``asyncio.sleep`` to count retry waits (2.0.2 calls it at the wait)."""
    waits: list[float] = []

    async def counting_sleep(delay: float) -> None:
        waits.append(delay)

    monkeypatch.setattr(asyncio, "sleep", counting_sleep)
    operation, calls = failing([RateLimitError("slow down", retryable=True), RateLimitError("again", retryable=True)])
    config = RetryConfig(max_retries=3, initial_delay=0.5, jitter=False)
    assert await retry_with_backoff(operation, config) == "ok"
    assert len(calls) == 3 and waits == [0.5, 1.0]
