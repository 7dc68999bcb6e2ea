"""Behaviour of truncate_values and redact_secrets (reference section 10, utils/truncate)."""

from __future__ import annotations

from amplifier_core.utils import SENSITIVE_KEYS, redact_secrets, truncate_values


def test_truncate_values_shortens_nested_strings_and_marks_them() -> None:
    data = {"a": "x" * 200, "b": ["y" * 10, {"c": "z" * 181}], "n": 5}
    out = truncate_values(data)
    assert out["a"] == "x" * 180 + "... (truncated 20 chars)"
    assert out["b"][0] == "y" * 10
    assert out["b"][1]["c"].endswith("(truncated 1 chars)")
    assert out["n"] == 5
    assert data["a"] == "x" * 200


def test_truncate_values_custom_length() -> None:
    assert truncate_values("abcdef", max_length=3) == "abc... (truncated 3 chars)"


def test_redact_secrets_replaces_sensitive_keys_case_insensitively_and_copies() -> None:
    data = {"API_KEY": "sk-1", "nested": [{"Authorization": "Bearer x", "model": "m"}], "token": 3}
    out = redact_secrets(data)
    assert out == {"API_KEY": "[REDACTED]", "nested": [{"Authorization": "[REDACTED]", "model": "m"}],
                   "token": "[REDACTED]"}
    assert data["API_KEY"] == "sk-1"


def test_sensitive_keys_match_upstream_set() -> None:
    assert SENSITIVE_KEYS == {"api_key", "apikey", "api-key", "secret", "password", "token", "credential",
                              "credentials", "private_key", "privatekey", "auth", "authorization"}


def test_redact_secrets_accepts_custom_key_set() -> None:
    assert redact_secrets({"pin": 1, "api_key": 2}, {"pin"}) == {"pin": "[REDACTED]", "api_key": 2}
