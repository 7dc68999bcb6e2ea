"""Text that is not UTF-8, made writable. Python hands undecodable bytes of file names, argv and command output
over as lone surrogates (``surrogateescape``), which no UTF-8 file, JSON or API accepts; shown escaped instead
(``caf\\xe9.txt``), they are carried through and the byte stays recognisable."""

from __future__ import annotations


def _escape(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte surrogateescape kept
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate shown as ``\\xNN`` (an undecodable byte) or ``\\uNNNN``."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(_escape(char) if "\ud800" <= char <= "\udfff" else char for char in text)
    return text
