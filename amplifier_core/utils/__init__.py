"""Small shared utilities: retry with backoff, error classification, truncation and redaction."""

from __future__ import annotations

from .retry import RetryConfig, classify_error_message, compute_delay, retry_with_backoff
from .truncate import SENSITIVE_KEYS, redact_secrets, truncate_values

__all__ = [
    "SENSITIVE_KEYS", "RetryConfig", "classify_error_message", "compute_delay", "redact_secrets",
    "retry_with_backoff", "truncate_values",
]
