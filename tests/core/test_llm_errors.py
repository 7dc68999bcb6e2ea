"""Behaviour of the provider-neutral error family (reference section 10, section 13 item 49)."""

from __future__ import annotations

import pytest

import amplifier_core.llm_errors as llm_errors
from amplifier_core.llm_errors import (
    AbortError,
    AccessDeniedError,
    AuthenticationError,
    ConfigurationError,
    ContentFilterError,
    ContextLengthError,
    InvalidRequestError,
    InvalidToolCallError,
    LLMError,
    LLMTimeoutError,
    NetworkError,
    NotFoundError,
    ProviderUnavailableError,
    QuotaExceededError,
    RateLimitError,
    StreamError,
)

EXPECTED = {
    RateLimitError: (LLMError, True),
    QuotaExceededError: (RateLimitError, False),
    AuthenticationError: (LLMError, False),
    AccessDeniedError: (AuthenticationError, False),
    ContextLengthError: (LLMError, False),
    ContentFilterError: (LLMError, False),
    InvalidRequestError: (LLMError, False),
    ProviderUnavailableError: (LLMError, True),
    NetworkError: (ProviderUnavailableError, True),
    LLMTimeoutError: (LLMError, True),
    NotFoundError: (LLMError, False),
    StreamError: (LLMError, True),
    AbortError: (LLMError, False),
    InvalidToolCallError: (LLMError, False),
    ConfigurationError: (LLMError, False),
}


def test_llm_error_defaults_repr_hierarchy() -> None:
    for error_class, (parent, retryable) in EXPECTED.items():
        assert error_class.__bases__ == (parent,), error_class
        assert error_class("m").retryable is retryable, error_class
    assert LLMError("m").retryable is False
    with pytest.raises(RateLimitError):
        raise QuotaExceededError("quota gone")
    assert repr(LLMError("plain")) == "LLMError('plain')"
    full = RateLimitError("slow down", provider="x", model="m", status_code=429, retry_after=5.0,
                          delay_multiplier=2.0)
    assert repr(full) == ("RateLimitError('slow down', provider='x', model='m', status_code=429, "
                          "retryable=True, retry_after=5.0, delay_multiplier=2.0)")


def test_llm_error_family_is_exactly_fifteen_subclasses() -> None:
    exported = {getattr(llm_errors, name) for name in llm_errors.__all__} - {LLMError}
    assert exported == set(EXPECTED)


def test_llm_error_stores_attributes_and_str_is_message() -> None:
    error = ProviderUnavailableError("down", provider="p", model="m", status_code=503, retry_after=1.5,
                                     delay_multiplier=3.0)
    assert str(error) == "down"
    assert (error.provider, error.model, error.status_code, error.retry_after, error.delay_multiplier) == (
        "p", "m", 503, 1.5, 3.0)


def test_retryable_override_in_both_directions() -> None:
    assert RateLimitError("x", retryable=False).retryable is False
    assert AuthenticationError("x", retryable=True).retryable is True


def test_invalid_tool_call_error_carries_tool_details() -> None:
    error = InvalidToolCallError("bad json", tool_name="bash", raw_arguments="{oops", provider="p")
    assert (error.tool_name, error.raw_arguments, error.provider) == ("bash", "{oops", "p")
    assert InvalidToolCallError("x").tool_name is None


def test_llm_error_chains_native_cause() -> None:
    native = ConnectionError("reset")
    try:
        try:
            raise native
        except ConnectionError as exc:
            raise NetworkError("network failed") from exc
    except LLMError as error:
        assert error.__cause__ is native
