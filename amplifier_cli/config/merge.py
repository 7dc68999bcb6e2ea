"""Merge rules shared by settings scopes and profile inheritance."""

from __future__ import annotations

import copy
from typing import Any


def deep_merge(base: Any, overlay: Any) -> Any:
    """Dicts merge recursively, anything else (lists included) is replaced; an explicit None removes the key."""
    if not isinstance(base, dict) or not isinstance(overlay, dict):
        return copy.deepcopy(overlay)
    merged = copy.deepcopy(base)
    for key, value in overlay.items():
        if value is None:
            merged.pop(key, None)
        elif key in merged:
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def merge_module_entry(base: dict[str, Any], overlay: dict[str, Any]) -> dict[str, Any]:
    """Same module id: fields overlaid, `config` deep-merged, `source` kept unless the overlay sets one."""
    merged = copy.deepcopy(base)
    for key, value in overlay.items():
        if key == "config":
            merged["config"] = deep_merge(merged.get("config") or {}, value or {})
        elif value is None:
            merged.pop(key, None)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def merge_module_lists(base: list[dict[str, Any]], overlay: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Merge by `module` id (and `instance_id`): parent order kept, new ids appended in overlay order."""

    def identity(entry: dict[str, Any]) -> tuple[Any, Any]:
        return entry.get("module"), entry.get("instance_id")

    merged = [copy.deepcopy(entry) for entry in base]
    positions = {identity(entry): index for index, entry in enumerate(merged)}
    for entry in overlay:
        key = identity(entry)
        if key in positions:
            merged[positions[key]] = merge_module_entry(merged[positions[key]], entry)
        else:
            positions[key] = len(merged)
            merged.append(copy.deepcopy(entry))
    return merged


def merge_role_entry(base: dict[str, Any] | None, overlay: dict[str, Any] | None) -> dict[str, Any] | None:
    """session.orchestrator/context: same module -> merged; a different module replaces (configs don't mix)."""
    if overlay is None:
        return copy.deepcopy(base)
    if base is None or ("module" in overlay and overlay["module"] != base.get("module")):
        return copy.deepcopy(overlay)
    return merge_module_entry(base, overlay)
