"""File names that are not UTF-8, shown and taken back.

Python hands a name's undecodable bytes over as lone surrogates (``surrogateescape``), which no JSON, API or
transcript accepts: they were dropped on the way to the model, which then saw ``caf.txt`` for ``caf\\xe9.txt``
and could not name the file. The tools show such a byte as ``\\xNN`` and read ``\\xNN`` back as that byte
when the name with the byte is the one that exists.
"""

from __future__ import annotations

import os
import re

from amplifier_support.surrogates import escape_surrogates

_ESCAPED_BYTE = re.compile(r"\\x([89a-fA-F][0-9a-fA-F])")


escape_name = escape_surrogates  # ``\\xNN`` for an undecodable byte, ``\\uNNNN`` for another lone surrogate


def unescape_name(raw: str, base: str) -> str:
    """``raw`` as given, unless it holds ``\\xNN`` escapes and only the name with those bytes exists (or only
    its directory does, for a new file): then that name. ``base`` is where a relative ``raw`` starts."""
    if "\\x" not in raw:
        return raw
    decoded = _ESCAPED_BYTE.sub(lambda match: chr(0xDC00 + int(match.group(1), 16)), raw)
    if decoded == raw:
        return raw
    literal, named = (os.path.join(base, os.path.expanduser(text)) for text in (raw, decoded))
    if os.path.lexists(literal):
        return raw
    if os.path.lexists(named):
        return decoded
    if not os.path.isdir(os.path.dirname(literal)) and os.path.isdir(os.path.dirname(named)):
        return decoded
    return raw
