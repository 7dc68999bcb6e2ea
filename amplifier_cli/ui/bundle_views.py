"""`amplifier bundle ...`: upstream's bundle commands over our profiles. A bundle IS a profile here (in
upstream's file format); `bundle.active` is the active profile spelled the bundle way, and `bundle.added`
registers a name for a bundle's path or git URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..config.paths import AmplifierPaths
from ..config.settings import SCOPES, Scope, load_settings, scope_path, update_scope, writable_scope_path
from ..errors import UsageError
from ..plans.profiles import DEFAULT_PROFILE, load_profile


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def normalize_bundle_uri(uri: str, cwd: Path) -> str:
    """`file://x` and relative paths become absolute paths (a registration must mean the same from any
    directory); git URLs are kept."""
    if uri.startswith("file://"):
        uri = uri.removeprefix("file://")
    if uri.startswith("git+") or "://" in uri:
        return uri
    return str((cwd / Path(uri).expanduser()).resolve())


def bundle_listing(paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    """Every profile/bundle found by name, then the registered ones; `active` marks the one sessions use."""
    from .profile_views import profile_listing

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
    name = _chosen_name(settings, scope) or DEFAULT_PROFILE
    return {"name": name, "reference": reference or DEFAULT_PROFILE, "scope": scope,
            "file": str(scope_path(paths, scope)) if scope else None}


def _chosen_name(settings: Any, scope: Scope | None) -> str | None:
    if scope is None:
        return None
    data = settings.scopes[scope].data
    return (data.get("bundle") or {}).get("active") or (data.get("profile") or {}).get("active") \
        or (data.get("profile") or {}).get("default")


def use_bundle(name: str, scope: Scope, paths: AmplifierPaths | None = None) -> Path:
    """Load (so a wrong name fails here, not at the next run), then write `bundle.active` at the scope."""
    paths = _paths(paths)
    writable_scope_path(paths, scope)
    settings = load_settings(paths)
    load_profile(settings.bundle_reference(name), paths)
    return update_scope(paths, scope, ("bundle", "active"), name)


def add_bundle(uri: str, alias: str | None, scope: Scope, paths: AmplifierPaths | None = None) -> tuple[str, Path]:
    """Register a bundle's path or git URL under its `bundle.name` (or `alias`); loaded first to check it."""
    paths = _paths(paths)
    writable_scope_path(paths, scope)
    target = normalize_bundle_uri(uri, paths.cwd)
    loaded = load_profile(target, paths)
    name = alias or _bundle_name(loaded) or Path(target.split("#")[0].split("@")[0]).stem
    if not name or "/" in name or ":" in name:
        raise UsageError.single(f"cannot derive a plain name for {uri}", fix="give one with --name NAME")
    return name, update_scope(paths, scope, ("bundle", "added", name), target)


def _bundle_name(loaded: Any) -> str | None:
    from ..config.yaml_document import load_yaml_document

    data = load_yaml_document(loaded.location.path).data
    meta = (data.get("bundle") or data.get("profile") or {}) if isinstance(data, dict) else {}
    return meta.get("name") if isinstance(meta, dict) else None


def remove_bundle(name: str, scope: Scope | None, paths: AmplifierPaths | None = None) -> list[Path]:
    """Drop a registration (from the given scope, else from every scope holding it)."""
    paths = _paths(paths)
    settings = load_settings(paths)
    scopes = [scope] if scope else [s for s in SCOPES
                                    if name in ((settings.scopes[s].data.get("bundle") or {}).get("added") or {})]
    if not scopes or name not in ((settings.scopes[scopes[0]].data.get("bundle") or {}).get("added") or {}):
        registered = ", ".join(settings.registered_bundles()) or "none"
        raise UsageError.single(f"no registered bundle '{name}'{' in the ' + scope + ' scope' if scope else ''} "
                                f"(registered: {registered})", fix="see `amplifier bundle list`")
    return [update_scope(paths, s, ("bundle", "added", name), None) for s in scopes]


def clear_bundle(scope: Scope | None, paths: AmplifierPaths | None = None) -> list[tuple[Scope, Path]]:
    """Forget the active bundle (`bundle.active` and `profile.active`) at a scope, or at every scope."""
    paths = _paths(paths)
    settings = load_settings(paths)
    cleared = []
    for candidate in ([scope] if scope else list(SCOPES)):
        data = settings.scopes[candidate].data
        if (data.get("bundle") or {}).get("active") or (data.get("profile") or {}).get("active"):
            update_scope(paths, candidate, ("bundle", "active"), None)
            path = update_scope(paths, candidate, ("profile", "active"), None)
            cleared.append((candidate, path))
    return cleared
