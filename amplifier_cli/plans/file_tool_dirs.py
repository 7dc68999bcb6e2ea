"""Settings `allowed_dirs` / `denied_dirs` (written by `amplifier allowed-dirs|denied-dirs`) applied to the
file tools of a plan: extra write (and read) roots, and places never read or written."""

from __future__ import annotations

from typing import Any

FILE_TOOL_MODULE = "tool-filesystem"


def apply_file_tool_dirs(plan: dict[str, Any], settings: Any) -> None:
    """Widen tool-filesystem's roots by `allowed_dirs`; add `denied_dirs` to what it refuses (its own default
    list of secret places is kept: the module adds `extra_denied_paths` to it)."""
    allowed = [str(item) for item in settings.merged.get("allowed_dirs") or []]
    denied = [str(item) for item in settings.merged.get("denied_dirs") or []]
    if not allowed and not denied:
        return
    for entry in plan.get("tools") or []:
        if entry.get("module") != FILE_TOOL_MODULE:
            continue
        config = dict(entry.get("config") or {})
        if allowed:
            for key in ("allowed_write_paths", "allowed_read_paths"):
                roots = list(config.get(key) or ["."])
                config[key] = roots + [root for root in allowed if root not in roots]
        if denied:
            extra = list(config.get("extra_denied_paths") or [])
            config["extra_denied_paths"] = extra + [path for path in denied if path not in extra]
        entry["config"] = config
