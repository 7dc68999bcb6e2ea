"""How a profile or bundle merges onto what it extends or includes (the same rules for both, and for an agent's
partial plan over its parent's): module lists by id, orchestrator/context replaced when the module changes,
everything else deep-merged, `exclude` applied to the parent first."""

from __future__ import annotations

import copy
from typing import Any

from ...config.merge import deep_merge, merge_module_lists, merge_role_entry
from ..mount_plan import MODULE_LIST_SECTIONS


def merge_profile_data(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """parent <- child: `exclude` applied to the parent first (not inherited), module lists merged by id,
    orchestrator/context replaced when the module changes, everything else deep-merged."""
    base = apply_exclude(copy.deepcopy(parent), child.get("exclude") or {})
    base.pop("exclude", None)
    merged = copy.deepcopy(base)
    for key, value in child.items():
        if key == "exclude":
            continue
        if key in MODULE_LIST_SECTIONS:
            merged[key] = merge_module_lists(base.get(key) or [], value or [])
        elif key == "session":
            session = deep_merge(
                {k: v for k, v in (base.get("session") or {}).items() if k not in ("orchestrator", "context")},
                {k: v for k, v in (value or {}).items() if k not in ("orchestrator", "context")},
            )
            for role in ("orchestrator", "context"):
                entry = merge_role_entry((base.get("session") or {}).get(role), (value or {}).get(role))
                if entry is not None:
                    session[role] = entry
            merged["session"] = session
        elif key in ("agents", "instruction", "project_instructions"):
            merged[key] = copy.deepcopy(value)
        else:
            merged[key] = deep_merge(base.get(key), value)
    return merged


def apply_exclude(data: dict[str, Any], exclude: dict[str, Any]) -> dict[str, Any]:
    for section, what in exclude.items():
        if what is None:
            continue
        if section == "agents":
            if what == "all":
                data["agents"] = "none"
            elif isinstance(data.get("agents"), list):
                data["agents"] = [name for name in data["agents"] if name not in what]
            elif isinstance(data.get("agents"), dict):
                data["agents"] = {k: v for k, v in data["agents"].items() if k not in what}
            continue
        if what == "all":
            data[section] = []
        else:
            data[section] = [entry for entry in data.get(section) or [] if entry.get("module") not in what]
    return data
