"""The `modules:` section of settings (`amplifier module add|remove|current`): modules the user adds by id,
each filed under the section its id prefix names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import UsageError
from .paths import AmplifierPaths
from .settings import SCOPES, Scope, load_settings, update_scope, writable_scope_path

# upstream's id prefixes -> the `modules:` section a module added in settings goes to
MODULE_SECTIONS = {"tool": "tools", "hook": "hooks", "provider": "providers", "agent": "agents",
                   "orchestrator": "orchestrators", "context": "contexts"}


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def module_section(module_id: str) -> str:
    from amplifier_core.module_ids import ID_PREFIXES, type_from_id

    section = MODULE_SECTIONS.get(type_from_id(module_id) or "")
    if section is not None:
        return section
    raise UsageError.single(
        f"cannot tell the type of module '{module_id}' from its id",
        fix="module ids start with " + ", ".join(sorted(ID_PREFIXES)) + " (e.g. tool-jupyter)")


def add_module(module_id: str, source: str | None, scope: Scope, paths: AmplifierPaths | None = None) -> Path:
    """Append `{module, source?}` to `modules.<section>` at the scope (replacing an entry of the same id)."""
    from .source_uri import normalize_source_uri

    paths = _paths(paths)
    writable_scope_path(paths, scope)
    section = module_section(module_id)
    settings = load_settings(paths)
    entries = [entry for entry in (settings.scopes[scope].data.get("modules") or {}).get(section) or []
               if entry.get("module") != module_id]
    entry: dict[str, Any] = {"module": module_id}
    if source:
        entry["source"] = normalize_source_uri(source, paths.cwd)
    return update_scope(paths, scope, ("modules", section), [*entries, entry])


def remove_module(module_id: str, scope: Scope, paths: AmplifierPaths | None = None) -> Path:
    paths = _paths(paths)
    settings = load_settings(paths)
    modules = settings.scopes[scope].data.get("modules") or {}
    for section, entries in modules.items():
        kept = [entry for entry in entries or [] if entry.get("module") != module_id]
        if len(kept) != len(entries or []):
            return update_scope(paths, scope, ("modules", section), kept or None)
    raise UsageError.single(f"module '{module_id}' is not added in the {scope} settings",
                            fix="see `amplifier module current` for where each added module is")


def current_modules(paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    settings = load_settings(_paths(paths))
    rows = []
    for scope in SCOPES:
        for section, entries in (settings.scopes[scope].data.get("modules") or {}).items():
            for entry in entries or []:
                rows.append({"module": entry["module"], "type": section, "source": entry.get("source") or "",
                             "scope": scope})
    return rows
