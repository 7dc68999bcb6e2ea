"""What a secret looks like in text, and the copy-on-write walk that replaces secrets in nested event data.

One combined regular expression covers the common credential formats; literal values (e.g. the API keys in
the environment) are replaced by plain substring search. Strings shorter than the shortest secret skip all of
it, so the many small streaming deltas cost one ``len`` call each.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from amplifier_core.utils import SENSITIVE_KEYS
from amplifier_support.secret_values import SecretValues

REDACTED = "[REDACTED]"
MIN_SECRET_LENGTH = 8

_SECRET_PATTERN = re.compile(
    r"(?P<pem>-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z))"
    r"|(?P<bearer>\b[Bb]earer\s+)[A-Za-z0-9\-._~+/]{8,}=*"
    r"|(?P<url_user>(?<=://)[^\s/:@]+:)[^\s/@]+(?=@)"
    r"|(?P<assignment>\b[A-Za-z0-9_]*(?i:api[_-]?key|secret|password|passwd|access[_-]?token|auth[_-]?token)"
    r"\s*[:=]\s*[\"']?)(?=[A-Za-z0-9_\-+/=.]*\d)[A-Za-z0-9_\-+/=.]{8,}"
    r"|(?<![A-Za-z0-9])sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}"
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}"
    r"|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bxox[abprs]-[A-Za-z0-9\-]{8,}"
    r"|\bAIza[0-9A-Za-z_\-]{30,}"
    r"|\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}"
)


def _replacement(match: re.Match[str]) -> str:
    for keep in ("bearer", "url_user", "assignment"):
        prefix = match.group(keep)
        if prefix is not None:
            return prefix + REDACTED
    return REDACTED


class SecretRedactor:
    """Replaces secrets in strings and, copy-on-write, in nested dicts/lists/tuples (other values untouched).

    ``literals`` are exact secret values (shorter than 8 characters are ignored: too likely to be ordinary
    text), replaced by ``[REDACTED]``; ``named`` maps a name (the environment variable) to a value, replaced
    by ``[REDACTED:NAME]`` so a reader knows which secret stood there. ``allowlist`` holds key names (matched
    at any depth) and dotted paths from the data root (``tool_input.command``) whose values are left alone.
    """

    def __init__(self, literals: Iterable[str] = (), allowlist: Iterable[str] = (),
                 named: Mapping[str, str] | None = None) -> None:
        self.named = SecretValues(named or {})
        known = set((named or {}).values())
        unique = {value for value in literals
                  if isinstance(value, str) and len(value) >= MIN_SECRET_LENGTH and value not in known}
        self.literals = sorted(unique, key=len, reverse=True)
        entries = set(allowlist)
        self.allowed_keys = {entry for entry in entries if "." not in entry}
        self.allowed_paths = {entry for entry in entries if "." in entry}

    def redact_text(self, text: str) -> str:
        if len(text) < MIN_SECRET_LENGTH:
            return text
        text = self.named.mask_text(text)
        for literal in self.literals:
            if literal in text:
                text = text.replace(literal, REDACTED)
        return _SECRET_PATTERN.sub(_replacement, text)

    def _allowed(self, key: Any, path: str) -> bool:
        return key in self.allowed_keys or path in self.allowed_paths

    def redact_value(self, value: Any, path: str = "") -> tuple[Any, bool]:
        """(redacted value, whether anything changed); containers are copied only along changed paths."""
        if isinstance(value, str):
            redacted = self.redact_text(value)
            return redacted, redacted != value
        if isinstance(value, dict):
            copied: dict[Any, Any] | None = None
            for key, item in value.items():
                child_path = f"{path}.{key}" if path else str(key)
                if self._allowed(key, child_path):
                    continue
                if (isinstance(key, str) and key.lower() in SENSITIVE_KEYS and isinstance(item, str)
                        and item and item != REDACTED):
                    new_item, changed = REDACTED, True
                else:
                    new_item, changed = self.redact_value(item, child_path)
                if changed:
                    if copied is None:
                        copied = dict(value)
                    copied[key] = new_item
            return (copied, True) if copied is not None else (value, False)
        if isinstance(value, list | tuple):
            items: list[Any] | None = None
            for index, item in enumerate(value):
                new_item, changed = self.redact_value(item, path)
                if changed:
                    if items is None:
                        items = list(value)
                    items[index] = new_item
            if items is None:
                return value, False
            return (tuple(items) if isinstance(value, tuple) else items), True
        return value, False

    def redact(self, value: Any) -> Any:
        """A redacted copy of ``value`` (the same object when nothing needed redacting)."""
        return self.redact_value(value)[0]

    def redact_in_place(self, data: dict[str, Any]) -> list[tuple[Any, Any, Any]]:
        """Replace the top-level values of ``data`` that held secrets; nested containers owned by the emitter
        are not mutated (changed ones are replaced by redacted copies). Returns ``(key, original, redacted)``
        for every replaced value, so the originals can be put back."""
        changes: list[tuple[Any, Any, Any]] = []
        for key in list(data):
            if self._allowed(key, str(key)):
                continue
            item = data[key]
            if isinstance(key, str) and key.lower() in SENSITIVE_KEYS and isinstance(item, str) and item:
                new_item, changed = REDACTED, item != REDACTED
            else:
                new_item, changed = self.redact_value(item, str(key))
            if changed:
                data[key] = new_item
                changes.append((key, item, new_item))
        return changes
