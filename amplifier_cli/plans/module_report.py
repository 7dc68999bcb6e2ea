"""What `amplifier source show` and `amplifier module list|show` report: each resolver layer's answer, and the
installed, profile and cached modules, one row per id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from amplifier_core.module_ids import type_from_id

from ..config.paths import AmplifierPaths
from ..config.settings import Settings, load_settings
from ..errors import ConfigError, UsageError


def _settings(paths: AmplifierPaths | None) -> Settings:
    return load_settings(paths or AmplifierPaths.discover())


def plan_source_hint(settings: Settings, module_id: str) -> str | None:
    """The `source:` the active profile gives this module, if the profile loads."""
    from .mount_plan import module_ids
    from .plan import build_plan

    try:
        built = build_plan(settings)
    except ConfigError:
        return None
    for _role, found_id, source in module_ids(built.plan):
        if found_id == module_id:
            return source
    return None


def active_plan_modules(settings: Settings) -> list[tuple[str, str, str | None]]:
    from .mount_plan import module_ids
    from .plan import build_plan

    try:
        return module_ids(build_plan(settings).plan)
    except ConfigError:
        return []


def explain_source(module_id: str, paths: AmplifierPaths | None = None) -> dict[str, Any]:
    from .sources import make_resolver

    settings = _settings(paths)
    resolver = make_resolver(settings)
    hint = plan_source_hint(settings, module_id)
    answers = resolver.explain(module_id, hint)
    winner = next((answer for answer in answers if answer.found), None)
    return {
        "module": module_id,
        "layers": [{"layer": a.layer, "found": a.found, "detail": a.detail} for a in answers],
        "resolved_by": winner.layer if winner else None,
        "source": winner.detail if winner else None,
    }


def module_listing(paths: AmplifierPaths | None = None, module_type: str | None = None) -> list[dict[str, Any]]:
    """Installed modules, modules of the active profile and cached git checkouts, one row per id."""
    from amplifier_core.loader import installed_entry_points

    from .sources import make_resolver
    from .sources.git_cache import GitCache

    settings = _settings(paths)
    resolver = make_resolver(settings)
    rows: dict[str, dict[str, Any]] = {}

    def row(module_id: str) -> dict[str, Any]:
        return rows.setdefault(
            module_id,
            {
                "module": module_id,
                "type": type_from_id(module_id) or "unknown",
                "installed": False,
                "in_profile": False,
                "cached": [],
                "origin": None,
            },
        )

    for installed in installed_entry_points():
        row(installed)["installed"] = True
    if resolver.workspace_dir is not None:  # None until the project is trusted (see waiting_workspace_modules)
        for module_id in workspace_module_ids(settings.paths):
            row(module_id)
    hints: dict[str, str | None] = {}
    for _role, module_id, source in active_plan_modules(settings):
        row(module_id)["in_profile"] = True
        hints[module_id] = source
    for entry in GitCache(settings.paths.git_cache_dir).entries():
        if entry.module_id:
            row(entry.module_id)["cached"].append(
                {"url": entry.url, "ref": entry.ref, "commit": entry.commit[:12], "mutable": entry.mutable}
            )
    for module_id, data in rows.items():
        winner = next((a for a in resolver.explain(module_id, hints.get(module_id)) if a.found), None)
        data["origin"] = winner.layer if winner else None
        data["transport"], declared = _transport(module_id, winner, settings.paths.cwd) if winner else (None, None)
        if declared:  # what a gRPC, native or WASM module's amplifier.toml says it is
            data["type"] = declared
    listing = sorted(rows.values(), key=lambda r: r["module"])
    if module_type:
        listing = [r for r in listing if r["type"] == module_type]
    return listing


def _transport(module_id: str, winner: Any, cwd: Path) -> tuple[str | None, str | None]:
    """(python, grpc, rust or wasm; the type its amplifier.toml declares) for a module found as an entry point or
    a local directory; (None, None) for one in a git source (not fetched to be listed)."""
    if winner.layer == "package":
        return "python", None
    from amplifier_core.module_manifest import ManifestError, read_manifest

    location = Path(winner.detail.removeprefix("file://")).expanduser()
    location = location if location.is_absolute() else cwd / location
    if not location.exists():
        return None, None
    try:
        manifest = read_manifest(module_id, location)
    except ManifestError:
        return "invalid manifest", None
    return manifest.transport, manifest.module_type


def workspace_module_ids(paths: AmplifierPaths) -> list[str]:
    """The ids of the project's own modules (`.amplifier/modules/<id>/`), trusted or not."""
    directory = paths.workspace_modules_dir
    if directory is None or not directory.is_dir():
        return []
    return sorted(child.name for child in directory.iterdir() if child.is_dir() and not child.name.startswith("."))


def waiting_workspace_modules(paths: AmplifierPaths | None = None) -> list[str]:
    """The project's own modules that are not used until the user trusts the project."""
    from ..config.trust import project_trusted

    paths = paths or AmplifierPaths.discover()
    ids = workspace_module_ids(paths)
    return ids if ids and not project_trusted(paths) else []


def module_details(module_id: str, paths: AmplifierPaths | None = None) -> dict[str, Any]:
    info = explain_source(module_id, paths)
    listing = {r["module"]: r for r in module_listing(paths)}
    if info["resolved_by"] is None and module_id not in listing:
        raise UsageError.single(f"module '{module_id}' is not known anywhere", fix="see 'amplifier module list'")
    extra = listing.get(module_id, {})
    return {
        **info,
        "type": extra.get("type") or type_from_id(module_id) or "unknown",
        "transport": extra.get("transport"),
        "installed": extra.get("installed", False),
        "in_profile": extra.get("in_profile", False),
        "cached": extra.get("cached", []),
    }
