"""Turn arbitrary event data into JSON-serializable values, writable as UTF-8, without ever raising."""

from __future__ import annotations

import dataclasses
import enum
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import PurePath
from typing import Any

from amplifier_support.surrogates import escape_surrogates

MAX_DEPTH = 32


def utf8_text(value: str) -> str:
    """``value`` as UTF-8 can hold it: lone surrogates (bytes of names and output that are not UTF-8) escaped."""
    return escape_surrogates(value)


def json_safe(value: Any, depth: int = 0) -> Any:
    """A JSON-serializable copy of ``value``: models are dumped, Decimals and paths become strings, other
    objects their ``str()``. Depth is bounded, so cyclic structures end in a string instead of a crash."""
    if isinstance(value, str):
        return utf8_text(value)
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if depth >= MAX_DEPTH:
        return f"<nested deeper than {MAX_DEPTH} levels>"
    if isinstance(value, dict):
        return {utf8_text(str(key)): json_safe(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(item, depth + 1) for item in value]
    if isinstance(value, Decimal | PurePath):
        return utf8_text(str(value))
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return json_safe(value.value, depth + 1)
    if isinstance(value, bytes | bytearray):
        return f"<{len(value)} bytes>"
    if isinstance(value, BaseException):
        return utf8_text(f"{type(value).__name__}: {value}")
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            return json_safe(dump(mode="json"), depth + 1)
        except Exception:
            pass
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        try:
            return json_safe({field.name: getattr(value, field.name) for field in dataclasses.fields(value)},
                             depth + 1)
        except Exception:
            pass
    try:
        return utf8_text(str(value))
    except Exception:
        return f"<unprintable {type(value).__name__}>"
