"""Shorten and redact nested event data before it is logged or shown."""

from __future__ import annotations

from typing import Any

SENSITIVE_KEYS: frozenset[str] = frozenset({
    "api_key", "apikey", "api-key", "secret", "password", "token", "credential", "credentials",
    "private_key", "privatekey", "auth", "authorization",
})


def truncate_values(obj: Any, max_length: int = 180) -> Any:
    """Return a copy with every string longer than ``max_length`` cut and marked."""
    if isinstance(obj, str):
        if len(obj) > max_length:
            return f"{obj[:max_length]}... (truncated {len(obj) - max_length} chars)"
        return obj
    if isinstance(obj, dict):
        return {key: truncate_values(value, max_length) for key, value in obj.items()}
    if isinstance(obj, list):
        return [truncate_values(value, max_length) for value in obj]
    return obj


def redact_secrets(obj: Any, sensitive_keys: set[str] | frozenset[str] = SENSITIVE_KEYS) -> Any:
    """Return a copy with the value of every sensitive key replaced by ``[REDACTED]``."""
    if isinstance(obj, dict):
        return {
            key: "[REDACTED]" if isinstance(key, str) and key.lower() in sensitive_keys
            else redact_secrets(value, sensitive_keys)
            for key, value in obj.items()
        }
    if isinstance(obj, list):
        return [redact_secrets(value, sensitive_keys) for value in obj]
    return obj
