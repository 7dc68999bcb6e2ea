"""Error translation details that need no server: in-stream error classification and status messages
(retry-after parsing is the kernel's: tests/core/test_retry.py)."""

from __future__ import annotations

from types import SimpleNamespace

from amplifier_module_provider_anthropic.errors import translate_status_error

from amplifier_core.llm_errors import AuthenticationError, ContentFilterError, StreamError


def status_error(status: int, message: str, error_type: str | None = None, headers: dict | None = None):
    return SimpleNamespace(status_code=status, api_message=message, type=error_type,
                           response=SimpleNamespace(headers=headers or {}), body=None)


def test_in_stream_overloaded_error_is_a_retryable_stream_error():
    error = translate_status_error(status_error(200, "Overloaded", "overloaded_error"), provider="anthropic", model="m")
    assert isinstance(error, StreamError) and error.retryable


def test_in_stream_invalid_request_error_is_not_retried():
    error = translate_status_error(status_error(200, "bad", "invalid_request_error"), provider="anthropic", model="m")
    assert isinstance(error, StreamError) and not error.retryable


def test_authentication_error_says_how_to_fix_it():
    error = translate_status_error(status_error(401, "invalid x-api-key"), provider="anthropic", model="m")
    assert isinstance(error, AuthenticationError)
    assert "Set ANTHROPIC_API_KEY" in str(error) and error.provider == "anthropic"


def test_content_filter_400_is_a_content_filter_error():
    error = translate_status_error(status_error(400, "Output blocked by content filtering policy"),
                                   provider="anthropic", model="m")
    assert isinstance(error, ContentFilterError)
