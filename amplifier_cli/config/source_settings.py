"""`sources:` in settings (`amplifier source list|add|remove`): a module id -> where to load it from."""

from __future__ import annotations

from typing import Any

from ..errors import UsageError
from .paths import AmplifierPaths
from .settings import SCOPES, Scope, Settings, load_settings, update_scope


def _settings(paths: AmplifierPaths | None) -> Settings:
    return load_settings(paths or AmplifierPaths.discover())


def source_listing(paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    settings = _settings(paths)
    rows = []
    for module_id, uri in sorted(settings.sources.items()):
        rows.append({"module": module_id, "source": uri, "scope": settings.source_origin(module_id)})
    return rows


def add_source(module_id: str, uri: str, scope: Scope, paths: AmplifierPaths | None = None) -> tuple[str, Any]:
    from .source_uri import normalize_source_uri

    paths = paths or AmplifierPaths.discover()
    if not module_id or "/" in module_id or module_id.startswith("."):
        raise UsageError.single(f"'{module_id}' is not a module id", fix="use an id like tool-bash")
    normalized = normalize_source_uri(uri, paths.cwd)  # relative paths mean relative to where you typed them
    path = update_scope(paths, scope, ("sources", module_id), normalized)
    return normalized, path


def remove_source(module_id: str, scope: Scope, paths: AmplifierPaths | None = None) -> Any:
    paths = paths or AmplifierPaths.discover()
    settings = load_settings(paths)
    if module_id not in (settings.scopes[scope].data.get("sources") or {}):
        where = [s for s in SCOPES if module_id in (settings.scopes[s].data.get("sources") or {})]
        fix = f"it is set in: {', '.join(where)} (pass that scope)" if where else "see 'amplifier source list'"
        raise UsageError.single(f"no source override for '{module_id}' in the {scope} scope", fix=fix)
    return update_scope(paths, scope, ("sources", module_id), None)
