"""error_for_common_status: the HTTP statuses every LLM API uses alike map to the same LLMError classes."""

from __future__ import annotations

import pytest

from amplifier_core.llm_errors import (
    ContentFilterError,
    InvalidRequestError,
    LLMTimeoutError,
    ProviderUnavailableError,
)
from amplifier_support.status_errors import error_for_common_status

WHERE = "Example API (model m)"


def test_408_is_a_server_side_timeout():
    error = error_for_common_status(408, "slow", where=WHERE, provider="p", model="m", status_code=408)
    assert isinstance(error, LLMTimeoutError)
    assert str(error).startswith("Example API (model m) timed out on the server side (HTTP 408): slow")
    assert (error.provider, error.model, error.status_code) == ("p", "m", 408)


@pytest.mark.parametrize("status", [400, 422])
def test_400_and_422_are_invalid_requests_unless_the_provider_saw_a_content_filter(status: int):
    rejected = error_for_common_status(status, "bad field", where=WHERE)
    assert isinstance(rejected, InvalidRequestError) and not rejected.retryable
    assert f"rejected the request (HTTP {status}): bad field" in str(rejected)
    blocked = error_for_common_status(status, "policy", where=WHERE, content_filtered=True)
    assert isinstance(blocked, ContentFilterError)
    assert f"blocked the content (HTTP {status}): policy" in str(blocked)


@pytest.mark.parametrize("status", [500, 502, 503, 529])
def test_5xx_is_a_retryable_unavailable_provider_carrying_retry_after(status: int):
    error = error_for_common_status(status, "down", where=WHERE, retry_after=4.0)
    assert isinstance(error, ProviderUnavailableError) and error.retryable and error.retry_after == 4.0
    assert f"failed (HTTP {status}): down" in str(error)


def test_retryable_field_from_the_caller_overrides_the_class_default():
    error = error_for_common_status(503, "down", where=WHERE, retryable=False)
    assert error is not None and not error.retryable


@pytest.mark.parametrize("status", [401, 403, 404, 409, 413, 418, 429])
def test_statuses_each_provider_maps_itself_give_none(status: int):
    assert error_for_common_status(status, "x", where=WHERE) is None
