"""Copying messages so the stored history shares no mutable part with what callers hold.

Messages are JSON-shaped (dicts, lists, strings, numbers), so a walk that rebuilds dicts and lists and
keeps every other value is enough, and it is several times faster than ``copy.deepcopy`` on a long
history that is copied for every request.
"""

from __future__ import annotations

from typing import Any


def copy_tree(value: Any) -> Any:
    """``value`` with every nested dict and list rebuilt (other values, immutable in JSON, are shared)."""
    if isinstance(value, dict):
        return {key: copy_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_tree(item) for item in value]
    return value
