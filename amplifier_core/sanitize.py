"""Strip characters that break JSON encoders and LLM APIs from text produced by tools and hooks."""

from __future__ import annotations

import re

# C0 controls except tab/LF/CR, DEL, C1 controls, and lone UTF-16 surrogates.
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def strip_control_chars(text: str) -> str:
    """Return ``text`` without control characters and lone surrogates (tab, newline and CR are kept)."""
    return _UNSAFE.sub("", text)
