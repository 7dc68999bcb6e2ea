"""Translate anthropic SDK and transport exceptions into the kernel's LLMError classes.

The SDK is imported inside the function (the provider only calls this after it created a client), so this
module stays free to import at package load.
"""

from __future__ import annotations

import json
from typing import Any

from amplifier_core.llm_errors import (
    AccessDeniedError,
    AuthenticationError,
    ContextLengthError,
    LLMError,
    LLMTimeoutError,
    NetworkError,
    NotFoundError,
    ProviderUnavailableError,
    RateLimitError,
    StreamError,
)
from amplifier_core.utils.retry import parse_retry_after, parse_should_retry
from amplifier_support.status_errors import error_for_common_status

from .config import API_KEY_ENV

_CONTEXT_PHRASES = ("prompt is too long", "context length", "context window", "too many tokens", "maximum context")


def _api_message(error: Any) -> str:
    message = getattr(error, "api_message", None)
    if message:
        return str(message)
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        return json.dumps(body, default=str)
    return str(getattr(error, "message", None) or error)


def translate_status_error(error: Any, *, provider: str, model: str) -> LLMError:
    """An ``anthropic.APIStatusError`` (HTTP 4xx/5xx, or an error event inside a 200 stream) -> LLMError."""
    status = int(getattr(error, "status_code", 0) or 0)
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    error_type = getattr(error, "type", None) or "error"
    text = _api_message(error)
    where = f"Anthropic API (model {model})"
    common: dict[str, Any] = {"provider": provider, "model": model, "status_code": status}
    if status == 200:
        retryable = error_type in ("overloaded_error", "api_error", "rate_limit_error")
        return StreamError(f"{where} reported an error inside the stream ({error_type}): {text}",
                           retryable=retryable, **common)
    should_retry = parse_should_retry(headers)
    if should_retry is not None:
        common["retryable"] = should_retry
    if status == 429:
        return RateLimitError(f"{where} rate limit hit (HTTP 429): {text}",
                              retry_after=parse_retry_after(headers), **common)
    if status == 401:
        return AuthenticationError(
            f"{where} rejected the API key (HTTP 401: {text}). Set {API_KEY_ENV} to a valid key "
            "(or `api_key` in the provider-anthropic config) and check it has not been revoked.", **common)
    if status == 403:
        return AccessDeniedError(f"{where} denied access (HTTP 403): {text}. Check that this key may use "
                                 f"model {model!r}.", **common)
    if status == 404:
        return NotFoundError(f"{where} not found (HTTP 404): {text}. Check the model name and base_url.", **common)
    lowered = text.lower()
    if status == 413 or any(phrase in lowered for phrase in _CONTEXT_PHRASES):
        return ContextLengthError(f"{where}: the request is too large for the model's context window "
                                  f"(HTTP {status}): {text}", **common)
    if status == 529:
        return ProviderUnavailableError(f"{where} is overloaded (HTTP 529): {text}",
                                        retry_after=parse_retry_after(headers), **common)
    shared = error_for_common_status(
        status, text, where=where, retry_after=parse_retry_after(headers),
        content_filtered=error_type == "content_filter" or "content filtering" in lowered, **common)
    if shared is not None:
        return shared
    if status == 409:
        common.setdefault("retryable", True)
    return LLMError(f"{where} error (HTTP {status}): {text}", **common)


def translate_error(error: BaseException, *, provider: str, model: str, streaming_began: bool) -> LLMError | None:
    """Map any exception raised by a call into an LLMError; None when it is not an API/transport failure
    (a programming error, which should propagate unchanged).

    ``streaming_began``: the 200 response had arrived, so a transport or decoding failure is a broken
    stream (StreamError), which the SDK itself neither maps nor retries.
    """
    import anthropic
    import httpx2

    if isinstance(error, LLMError):
        return error
    common: dict[str, Any] = {"provider": provider, "model": model}
    if isinstance(error, anthropic.APIStatusError):
        return translate_status_error(error, provider=provider, model=model)
    if streaming_began:
        if isinstance(error, json.JSONDecodeError):
            return StreamError(f"Anthropic stream sent a malformed frame (invalid JSON: {error})", **common)
        if isinstance(error, (httpx2.TransportError, anthropic.APIConnectionError, httpx2.DecodingError)):
            return StreamError(f"Anthropic stream broke before the response completed "
                               f"({type(error).__name__}: {error})", **common)
        if isinstance(error, anthropic.APIResponseValidationError):
            return StreamError(f"Anthropic stream sent an unexpected event: {error}", **common)
    if isinstance(error, anthropic.APITimeoutError) or isinstance(error, httpx2.TimeoutException):
        return LLMTimeoutError(f"Anthropic API did not answer in time ({error}); raise `timeout` in the "
                               "provider-anthropic config if long answers are expected", **common)
    if isinstance(error, anthropic.APIConnectionError) or isinstance(error, httpx2.TransportError):
        cause = error.__cause__ or error
        return NetworkError(f"Cannot reach the Anthropic API ({type(cause).__name__}: {cause}); check the "
                            "network and base_url / ANTHROPIC_BASE_URL", **common)
    if isinstance(error, json.JSONDecodeError):
        return ProviderUnavailableError(f"Anthropic API sent an invalid JSON response ({error})", **common)
    if isinstance(error, anthropic.APIResponseValidationError):
        return ProviderUnavailableError(f"Anthropic API sent an unexpected response: {error}", **common)
    return None
