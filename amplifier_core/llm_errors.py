"""Provider-neutral LLM errors. Providers translate SDK errors into these so orchestrators and retry logic
can reason about them without knowing the SDK."""

from __future__ import annotations

from typing import Any


class LLMError(Exception):
    """Base of every provider error; ``retryable`` drives :func:`retry_with_backoff`.

    Each class states its own ``retryable`` default in its signature, as upstream 2.0.2 does.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        model: str | None = None,
        status_code: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        delay_multiplier: float = 1.0,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.model = model
        self.status_code = status_code
        self.retryable = retryable
        self.retry_after = retry_after
        self.delay_multiplier = delay_multiplier

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        parts = [repr(self.message)]
        for field in ("provider", "model", "status_code"):
            value = getattr(self, field)
            if value is not None:
                parts.append(f"{field}={value!r}")
        if self.retryable:
            parts.append("retryable=True")
        if self.retry_after is not None:
            parts.append(f"retry_after={self.retry_after!r}")
        if self.delay_multiplier != 1.0:
            parts.append(f"delay_multiplier={self.delay_multiplier!r}")
        return f"{type(self).__name__}({', '.join(parts)})"


def _retryable_by_default_init(
    self: LLMError,
    message: str,
    *,
    provider: str | None = None,
    model: str | None = None,
    status_code: int | None = None,
    retryable: bool = True,
    retry_after: float | None = None,
    delay_multiplier: float = 1.0,
) -> None:
    """``__init__`` of the transient failures (the same request may well succeed later): retryable by default."""
    LLMError.__init__(self, message, provider=provider, model=model, status_code=status_code, retryable=retryable,
                      retry_after=retry_after, delay_multiplier=delay_multiplier)


class RateLimitError(LLMError):
    __init__ = _retryable_by_default_init


class QuotaExceededError(RateLimitError):
    """Billing quota exhausted: waiting will not help, so not retryable (``except RateLimitError`` still
    catches it)."""

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None = None,
        provider: str | None = None,
        model: str | None = None,
        status_code: int | None = None,
        retryable: bool = False,
        delay_multiplier: float = 1.0,
    ) -> None:
        super().__init__(message, provider=provider, model=model, status_code=status_code, retryable=retryable,
                         retry_after=retry_after, delay_multiplier=delay_multiplier)


class AuthenticationError(LLMError):
    pass


class AccessDeniedError(AuthenticationError):
    pass


class ContextLengthError(LLMError):
    pass


class ContentFilterError(LLMError):
    pass


class InvalidRequestError(LLMError):
    pass


class ProviderUnavailableError(LLMError):
    __init__ = _retryable_by_default_init


class NetworkError(ProviderUnavailableError):
    pass


class LLMTimeoutError(LLMError):
    __init__ = _retryable_by_default_init


class NotFoundError(LLMError):
    pass


class StreamError(LLMError):
    """The response stream broke after it began (cut connection, malformed frame, missing stop)."""

    __init__ = _retryable_by_default_init


class AbortError(LLMError):
    pass


class ConfigurationError(LLMError):
    pass


class InvalidToolCallError(LLMError):
    """The model produced a malformed tool call; retrying the same prompt likely repeats it."""

    def __init__(
        self,
        message: str,
        *,
        tool_name: str | None = None,
        raw_arguments: Any = None,
        provider: str | None = None,
        model: str | None = None,
        status_code: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        delay_multiplier: float = 1.0,
    ) -> None:
        super().__init__(message, provider=provider, model=model, status_code=status_code, retryable=retryable,
                         retry_after=retry_after, delay_multiplier=delay_multiplier)
        self.tool_name = tool_name
        self.raw_arguments = raw_arguments


__all__ = [
    "AbortError", "AccessDeniedError", "AuthenticationError", "ConfigurationError", "ContentFilterError",
    "ContextLengthError", "InvalidRequestError", "InvalidToolCallError", "LLMError", "LLMTimeoutError",
    "NetworkError", "NotFoundError", "ProviderUnavailableError", "QuotaExceededError", "RateLimitError",
    "StreamError",
]
