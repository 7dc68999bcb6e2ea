"""Known secret values, by name, and masking them as ``[REDACTED:NAME]`` wherever they appear in nested data.

In the kernel because three parties persist session data and none may write a secret: hooks-logging
(events.jsonl), hooks-redaction (what observers see) and the app's session store (transcript, exports).
Each asks ``SecretValues`` the same question. Which values count as secrets is decided by the caller; the
variables whose names say they hold secrets (``*_API_KEY``, ``*_TOKEN``, ``*_SECRET``, ...: the one rule of
``amplifier_support.credentials``, which also keeps them from shell commands and hooks) are offered by
``secret_environment``.

Capability ``secrets.values`` (a ``{NAME: value}`` dict) is how an app hands modules the extra values it
knows to be secret (e.g. what a profile reads through ``${VAR}`` into a key-like config field).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .credentials import is_credential_name

MIN_SECRET_LENGTH = 8  # shorter values are too likely to be ordinary text ("true", a port number)
KEY_LIKE_FIELD = re.compile(r"(?:^|[_-])(?:api[_-]?key|key|token|secret|password|passwd|credentials?|auth|"
                            r"authorization|private[_-]?key)$", re.IGNORECASE)


def marker(name: str) -> str:
    return f"[REDACTED:{name}]"


def secret_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of ``environ`` (default ``os.environ``) whose names say they hold a secret."""
    source = os.environ if environ is None else environ
    return {name: value for name, value in source.items()
            if is_credential_name(name) and isinstance(value, str) and len(value) >= MIN_SECRET_LENGTH}


class SecretValues:
    """A set of named secret values; ``mask`` replaces each occurrence by ``[REDACTED:NAME]``.

    Longer values are replaced first, so a value containing another is masked whole. Masking is
    copy-on-write: unchanged containers are returned as they are."""

    def __init__(self, named: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> None:
        items = named.items() if isinstance(named, Mapping) else named
        by_value: dict[str, str] = {}
        for name, value in items:
            if isinstance(value, str) and len(value) >= MIN_SECRET_LENGTH:
                by_value.setdefault(value, str(name))
        self._ordered = sorted(by_value.items(), key=lambda item: len(item[0]), reverse=True)

    @classmethod
    def from_environment(cls, extra: Mapping[str, str] | None = None,
                         environ: Mapping[str, str] | None = None) -> SecretValues:
        return cls({**secret_environment(environ), **(extra or {})})

    def __bool__(self) -> bool:
        return bool(self._ordered)

    def __len__(self) -> int:
        return len(self._ordered)

    def items(self) -> list[tuple[str, str]]:
        """(name, value) pairs, for handing on (capability ``secrets.values``)."""
        return [(name, value) for value, name in self._ordered]

    def names(self) -> list[str]:
        return sorted({name for _, name in self._ordered})

    def mask_text(self, text: str) -> str:
        if len(text) < MIN_SECRET_LENGTH:
            return text
        for value, name in self._ordered:
            if value in text:
                text = text.replace(value, marker(name))
        return text

    def _spans(self, text: str) -> list[tuple[int, int, str]]:
        """Where ``mask_text`` would replace: (start, end, name), longest values first, not overlapping."""
        spans: list[tuple[int, int, str]] = []
        for value, name in self._ordered:
            start = text.find(value)
            while start != -1:
                end = start + len(value)
                if not any(start < other_end and other_start < end for other_start, other_end, _ in spans):
                    spans.append((start, end, name))
                start = text.find(value, start + 1)
        return sorted(spans)

    def mask_pieces(self, pieces: list[str]) -> list[str]:
        """``pieces`` of one text cut anywhere (stream deltas), each masked so that together they read as the
        masked whole: a secret cut across pieces is masked too (the marker goes where it starts, the rest of it
        is dropped from the pieces that held it). The same list when nothing needed masking."""
        joined = "".join(pieces)
        spans = self._spans(joined) if self._ordered and len(joined) >= MIN_SECRET_LENGTH else []
        if not spans:
            return pieces
        masked: list[str] = []
        begin = 0
        for piece in pieces:
            finish = begin + len(piece)
            out: list[str] = []
            position = begin
            for start, end, name in spans:
                if end <= begin or start >= finish:
                    continue
                out.append(joined[position:max(start, position)])
                if start >= begin:
                    out.append(marker(name))
                position = min(end, finish)
            out.append(joined[position:finish])
            masked.append("".join(out))
            begin = finish
        return masked

    def mask(self, value: Any) -> Any:
        """A copy of ``value`` (strings, dicts, lists, tuples, nested) with every secret masked; other values
        (numbers, objects) are returned unchanged. The same object when nothing needed masking."""
        if not self._ordered:
            return value
        if isinstance(value, str):
            return self.mask_text(value)
        if isinstance(value, dict):
            changed = False
            copied: dict[Any, Any] = {}
            for key, item in value.items():
                new_key = self.mask_text(key) if isinstance(key, str) else key
                new_item = self.mask(item)
                changed = changed or new_item is not item or new_key != key
                copied[new_key] = new_item
            return copied if changed else value
        if isinstance(value, list | tuple):
            items = [self.mask(item) for item in value]
            if all(new is old for new, old in zip(items, value, strict=True)):
                return value
            return tuple(items) if isinstance(value, tuple) else items
        return value
