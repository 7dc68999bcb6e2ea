"""What the profile and bundle commands report (`profile list|show|current`, `bundle list|current`): every
profile found by name with its problems, one profile's chain and plan, the active one."""

from __future__ import annotations

from typing import Any

from ..config.bundle_settings import chosen_bundle_name
from ..config.paths import AmplifierPaths
from ..config.settings import SCOPES, load_settings, scope_path
from .profiles.loader import DEFAULT_PROFILE, list_locations, load_profile


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
        problems = profile_problems(location.name, settings)
        description = _quick_description(location.path)
        if problems:
            status = f"{status}, invalid" if status else "invalid"
            first = problems[0] if len(problems[0]) <= 160 else problems[0][:157] + "..."
            description = f"{first} (all problems: amplifier profile list --json)"
        rows[location.name] = {
            "name": location.name,
            "origin": location.origin,
            "path": str(location.path),
            "status": status,
            "description": description,
            "problems": problems,
            "shadows": [],
        }
    return sorted(rows.values(), key=lambda row: row["name"])


def validate_profile(name: str, settings: Any) -> None:
    """What `run` checks before it mounts anything: the profile (extends, schema, required keys) merged with the
    settings, and that every module it names can be found (no git fetch). Raises ConfigError."""
    from .module_preflight import check_plan_modules
    from .plan import build_plan
    from .sources import make_resolver

    built = build_plan(settings, name, paths=settings.paths)
    check_plan_modules(built.plan, make_resolver(settings), fetch=False)


def profile_problems(name: str, settings: Any) -> list[str]:
    """The problems `run -P name` would report, rendered one per line; empty when the profile is valid."""
    from ..errors import ConfigError

    try:
        validate_profile(name, settings)
    except ConfigError as error:
        return [problem.render() for problem in error.problems] or [error.render()]
    return []


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


def current_profile(paths: AmplifierPaths | None = None) -> dict[str, Any]:
    paths = paths or AmplifierPaths.discover()
    settings = load_settings(paths)
    name, scope = settings.active_profile()
    return {
        "name": name or DEFAULT_PROFILE,
        "scope": scope,
        "file": str(scope_path(paths, scope)) if scope else None,
    }


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def bundle_listing(paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    """Every profile/bundle found by name, then the registered ones; `active` marks the one sessions use."""

    paths = _paths(paths)
    settings = load_settings(paths)
    active, _scope = settings.active_profile()
    rows = [{"name": row["name"], "source": row["origin"], "uri": "", "active": row["status"] == "active",
             "description": row["description"]} for row in profile_listing(paths)]
    for scope in SCOPES:
        for name, uri in ((settings.scopes[scope].data.get("bundle") or {}).get("added") or {}).items():
            rows = [row for row in rows if row["name"] != name]
            rows.append({"name": name, "source": f"registered ({scope})", "uri": uri, "active": uri == active,
                         "description": ""})
    if not any(row["active"] for row in rows):
        for row in rows:
            row["active"] = row["name"] == (active or DEFAULT_PROFILE)
    return rows


def current_bundle(paths: AmplifierPaths | None = None) -> dict[str, Any]:
    paths = _paths(paths)
    settings = load_settings(paths)
    reference, scope = settings.active_profile()
    name = chosen_bundle_name(settings, scope) or DEFAULT_PROFILE
    return {"name": name, "reference": reference or DEFAULT_PROFILE, "scope": scope,
            "file": str(scope_path(paths, scope)) if scope else None}
