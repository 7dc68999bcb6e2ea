"""Putting original values back into event data that a ``modify`` hook rebuilt from the redacted data."""

from __future__ import annotations

from typing import Any


def put_back(current: Any, original: Any, redacted: Any) -> Any:
    """``current`` with every part still equal to what redaction produced replaced by the original; parts a
    hook changed are kept. Only the containers on changed paths are copied."""
    if current is redacted or _equal(current, redacted):
        return original
    if isinstance(current, dict) and isinstance(redacted, dict) and isinstance(original, dict):
        rebuilt: dict[Any, Any] | None = None
        for key, item in current.items():
            if key in redacted and key in original and redacted[key] is not original[key]:
                restored = put_back(item, original[key], redacted[key])
                if restored is not item:
                    rebuilt = rebuilt if rebuilt is not None else dict(current)
                    rebuilt[key] = restored
        return rebuilt if rebuilt is not None else current
    if (isinstance(current, list | tuple) and isinstance(redacted, list | tuple) and isinstance(original, list | tuple)
            and len(current) == len(redacted) == len(original)):
        items = [put_back(item, before, after) if after is not before else item
                 for item, before, after in zip(current, original, redacted, strict=True)]
        if any(new is not old for new, old in zip(items, current, strict=True)):
            return tuple(items) if isinstance(current, tuple) else items
    return current


def _equal(left: Any, right: Any) -> bool:
    try:
        return bool(left == right)
    except Exception:
        return False
