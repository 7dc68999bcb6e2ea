"""`notify:` in settings (`amplifier notify status|desktop|reset`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .paths import AmplifierPaths
from .settings import SCOPES, Scope, load_settings, update_scope


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def notify_status(paths: AmplifierPaths | None = None) -> dict[str, Any]:
    settings = load_settings(_paths(paths))
    enabled, origin = False, None
    for scope in SCOPES:
        desktop = (settings.scopes[scope].data.get("notify") or {}).get("desktop") or {}
        if "enabled" in desktop:
            enabled, origin = bool(desktop["enabled"]), scope
    return {"desktop": {"enabled": enabled, "scope": origin}}


def set_desktop(enabled: bool, scope: Scope, paths: AmplifierPaths | None = None) -> Path:
    return update_scope(_paths(paths), scope, ("notify", "desktop", "enabled"), enabled)


def reset_notify(scope: Scope | None, paths: AmplifierPaths | None = None) -> list[Path]:
    paths = _paths(paths)
    settings = load_settings(paths)
    return [update_scope(paths, candidate, ("notify",), None) for candidate in ([scope] if scope else list(SCOPES))
            if settings.scopes[candidate].data.get("notify")]
