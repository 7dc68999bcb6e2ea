"""`bundle:` in settings: `bundle.active` (the active profile spelled the bundle way) and `bundle.added` (a
name registered for a bundle's path or git URL). A bundle IS a profile here, in upstream's file format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import UsageError
from .paths import AmplifierPaths
from .settings import SCOPES, Scope, load_settings, update_scope


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


def chosen_bundle_name(settings: Any, scope: Scope | None) -> str | None:
    if scope is None:
        return None
    data = settings.scopes[scope].data
    return (data.get("bundle") or {}).get("active") or (data.get("profile") or {}).get("active") \
        or (data.get("profile") or {}).get("default")


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
