"""What the profile commands show and change, kept out of the command file so it can be tested directly."""

from __future__ import annotations

from typing import Any

from ..config.paths import AmplifierPaths
from ..config.settings import Scope, load_settings, scope_path, update_scope
from ..plans.profiles import DEFAULT_PROFILE, list_locations, load_profile


def profile_listing(paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    paths = paths or AmplifierPaths.discover()
    settings = load_settings(paths)
    active, _scope = settings.active_profile()
    rows: dict[str, dict[str, Any]] = {}
    for location in list_locations(paths):
        if location.name in rows:
            rows[location.name]["shadows"].append(f"{location.origin}:{location.path}")
            continue
        status = "active" if location.name == (active or DEFAULT_PROFILE) else ""
        if location.name == DEFAULT_PROFILE and not status:
            status = "default"
        rows[location.name] = {
            "name": location.name,
            "origin": location.origin,
            "path": str(location.path),
            "status": status,
            "description": _quick_description(location.path),
            "shadows": [],
        }
    return sorted(rows.values(), key=lambda row: row["name"])


def _quick_description(path: Any) -> str:
    """Description without full validation, so one broken file doesn't break the listing."""
    from ..config.yaml_document import load_yaml_document
    from ..errors import ConfigError

    try:
        data = load_yaml_document(path).data
    except ConfigError:
        return "(invalid file: run 'amplifier profile show' for details)"
    meta = (data.get("bundle") or data.get("profile")) if isinstance(data, dict) else None
    return str(meta.get("description") or "") if isinstance(meta, dict) else ""


def describe_profile(name: str, *, resolved: bool, paths: AmplifierPaths | None = None) -> dict[str, Any]:
    paths = paths or AmplifierPaths.discover()
    profile = load_profile(name, paths)
    info: dict[str, Any] = {
        "name": profile.name,
        "origin": profile.location.origin,
        "path": str(profile.location.path),
        "description": profile.description,
        "chain": [f"{loc.name} ({loc.origin})" for loc in profile.chain],
    }
    if resolved:
        info["plan"] = profile.plan
        info["instruction"] = profile.instruction
    else:
        info["text"] = profile.location.path.read_text(encoding="utf-8")
    return info


def use_profile(name: str, scope: Scope, paths: AmplifierPaths | None = None) -> Any:
    paths = paths or AmplifierPaths.discover()
    from ..config.settings import writable_scope_path

    writable_scope_path(paths, scope)
    profile = load_profile(name, paths)  # validate before writing
    return update_scope(paths, scope, ("profile", "active"), profile.name)


def current_profile(paths: AmplifierPaths | None = None) -> dict[str, Any]:
    paths = paths or AmplifierPaths.discover()
    settings = load_settings(paths)
    name, scope = settings.active_profile()
    return {
        "name": name or DEFAULT_PROFILE,
        "scope": scope,
        "file": str(scope_path(paths, scope)) if scope else None,
    }
