"""Error translation details that need no server: retry-after parsing and in-stream error classification."""

from __future__ import annotations

import email.utils
import time
from types import SimpleNamespace

from amplifier_module_provider_anthropic.errors import parse_retry_after, translate_status_error

from amplifier_core.llm_errors import AuthenticationError, ContentFilterError, StreamError


def status_error(status: int, message: str, error_type: str | None = None, headers: dict | None = None):
    return SimpleNamespace(status_code=status, api_message=message, type=error_type,
                           response=SimpleNamespace(headers=headers or {}), body=None)


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
