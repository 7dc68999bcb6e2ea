"""Translate openai SDK and transport exceptions into the kernel's LLMError classes.

The SDK is imported inside ``translate_error`` (only ever called after the provider built a client), so this
module is free to import at package load.
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
    QuotaExceededError,
    RateLimitError,
    StreamError,
)
from amplifier_core.utils.retry import parse_retry_after, parse_should_retry
from amplifier_support.status_errors import error_for_common_status

from .config import API_KEY_ENV, BASE_URL_ENV

_CONTEXT_PHRASES = ("context_length_exceeded", "maximum context length", "context length", "context window",
                    "too many tokens", "prompt is too long")
_FILTER_PHRASES = ("content_filter", "content filter", "content_policy", "safety system")
# In-stream error codes worth retrying (transient server trouble), matched as substrings.
_RETRYABLE_STREAM_CODES = ("server", "overloaded", "rate_limit", "internal", "timeout", "unavailable")


def _error_detail(error: Any) -> tuple[str, str]:
    """(message, code-or-type) from an SDK error's body."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        message = inner.get("message") or json.dumps(body, default=str)
        return str(message), str(inner.get("code") or inner.get("type") or "")
    return str(getattr(error, "message", None) or error), str(getattr(error, "code", None) or "")


class ErrorContext:
    """Who is talking to whom, so every message can say where the failure happened and how to fix it."""

    def __init__(self, *, provider: str, model: str, base_url: str | None, api: str) -> None:
        self.provider = provider
        self.model = model
        self.base_url = base_url
        self.api = api

    @property
    def where(self) -> str:
        server = f"the server at {self.base_url}" if self.base_url else "the OpenAI API"
        label = "Responses" if self.api == "responses" else "Chat Completions"
        return f"{server} ({label}, model {self.model})"

    def common(self, **extra: Any) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.model, **extra}


def translate_status_error(error: Any, context: ErrorContext) -> LLMError:
    """An ``openai.APIStatusError`` (HTTP 4xx/5xx before any body) -> LLMError."""
    status = int(getattr(error, "status_code", 0) or 0)
    headers = getattr(getattr(error, "response", None), "headers", None)
    text, code = _error_detail(error)
    where = context.where
    common = context.common(status_code=status)
    should_retry = parse_should_retry(headers)
    if should_retry is not None:
        common["retryable"] = should_retry
    lowered = f"{text} {code}".lower()
    if status == 429:
        if code == "insufficient_quota" or "quota" in lowered:
            return QuotaExceededError(f"{where}: the account's quota is used up (HTTP 429: {text}). Add credit "
                                      "or raise the limit in the OpenAI billing settings.", **common)
        return RateLimitError(f"{where}: rate limit hit (HTTP 429): {text}",
                              retry_after=parse_retry_after(headers), **common)
    if status == 401:
        return AuthenticationError(
            f"{where} rejected the API key (HTTP 401: {text}). Set {API_KEY_ENV} to a valid key (or `api_key` "
            f"in the provider-openai config) and check that it has not been revoked.", **common)
    if status == 403:
        return AccessDeniedError(f"{where} denied access (HTTP 403): {text}. Check that this key's project may "
                                 f"use model {context.model!r}.", **common)
    if status == 404:
        return NotFoundError(f"{where}: not found (HTTP 404): {text}. Check `default_model` and `base_url` / "
                             f"{BASE_URL_ENV}.", **common)
    if status == 413 or any(phrase in lowered for phrase in _CONTEXT_PHRASES):
        return ContextLengthError(f"{where}: the conversation is too long for the model's context window "
                                  f"(HTTP {status}): {text}", **common)
    shared = error_for_common_status(
        status, text, where=where, retry_after=parse_retry_after(headers),
        content_filtered=any(phrase in lowered for phrase in _FILTER_PHRASES), **common)
    if shared is not None:
        return shared
    if status == 409:
        common.setdefault("retryable", True)
    return LLMError(f"{where}: error (HTTP {status}): {text}", **common)


def stream_error_event(code: str | None, message: str | None, context: ErrorContext) -> StreamError:
    """An error reported inside a 200 stream (Responses ``error`` / ``response.failed`` events)."""
    code_text = code or "error"
    retryable = any(fragment in code_text.lower() for fragment in _RETRYABLE_STREAM_CODES)
    return StreamError(f"{context.where} reported an error inside the stream ({code_text}): {message or ''}",
                       retryable=retryable, **context.common())


def translate_error(error: BaseException, context: ErrorContext, *, streaming_began: bool) -> LLMError | None:
    """Any exception raised by a call -> LLMError; None for programming errors, which propagate unchanged.

    ``streaming_began``: the 200 headers had arrived, so a transport, decoding or in-stream error means a
    broken stream (StreamError), which the SDK neither maps nor retries.
    """
    import httpx2
    import openai

    if isinstance(error, LLMError):
        return error
    common = context.common()
    if isinstance(error, openai.APIStatusError):
        return translate_status_error(error, context)
    if streaming_began:
        if isinstance(error, json.JSONDecodeError):
            return StreamError(f"{context.where} sent a malformed stream frame (invalid JSON: {error})", **common)
        if isinstance(error, (openai.APIConnectionError, httpx2.TransportError, httpx2.DecodingError)):
            return StreamError(f"the stream from {context.where} broke before the response completed "
                               f"({type(error).__name__}: {error})", **common)
        if isinstance(error, openai.APIError):  # an error frame inside a Chat Completions stream
            text, code = _error_detail(error)
            return stream_error_event(code, text, context)
    if isinstance(error, (openai.APITimeoutError, httpx2.TimeoutException)):
        return LLMTimeoutError(f"{context.where} did not answer in time ({error}); raise `timeout` in the "
                               "provider-openai config if long answers are expected", **common)
    if isinstance(error, (openai.APIConnectionError, httpx2.TransportError)):
        cause = error.__cause__ or error
        return NetworkError(f"cannot reach {context.where} ({type(cause).__name__}: {cause}); check the network "
                            f"and `base_url` / {BASE_URL_ENV}", **common)
    if isinstance(error, json.JSONDecodeError):
        return ProviderUnavailableError(f"{context.where} sent an invalid JSON response ({error})", **common)
    if isinstance(error, openai.APIError):
        text, _code = _error_detail(error)
        return ProviderUnavailableError(f"{context.where} sent an unexpected response: {text}", **common)
    return None
