"""The kernel's small utilities, as upstream's kernel has them: retry with backoff and HTTP retry hints, error
classification, truncation and redaction. Code modules share beyond that (provider helpers, the sandbox, secret
values, the shell parse) lives in the ``amplifier_support`` package beside the kernel."""

from __future__ import annotations

from .retry import (
    RetryConfig,
    classify_error_message,
    compute_delay,
    parse_retry_after,
    parse_should_retry,
    retry_with_backoff,
)
from .truncate import SENSITIVE_KEYS, redact_secrets, truncate_values

__all__ = [
    "SENSITIVE_KEYS", "RetryConfig", "classify_error_message", "compute_delay", "parse_retry_after",
    "parse_should_retry", "redact_secrets", "retry_with_backoff", "truncate_values",
]
