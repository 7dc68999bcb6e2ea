"""`amplifier routing list|use|show`: upstream's routing matrices, resolved against the providers the active
profile mounts (with settings and keys as a session would see them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..config.paths import AmplifierPaths
from ..config.routing_matrix import active_matrix_name, load_matrix, matrix_files, resolve_role
from ..config.settings import Scope, load_settings, update_scope, writable_scope_path


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def matrix_listing(paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    paths = _paths(paths)
    active = active_matrix_name(load_settings(paths))
    rows = []
    for name, origin, path in matrix_files(paths):
        matrix = load_matrix(name, paths)
        rows.append({"name": name, "origin": origin, "path": str(path), "active": name == active,
                     "description": matrix.data.description, "roles": sorted(matrix.data.roles)})
    return rows


def use_matrix(name: str, scope: Scope, paths: AmplifierPaths | None = None) -> Path:
    paths = _paths(paths)
    writable_scope_path(paths, scope)
    load_matrix(name, paths)  # checked before it is written
    return update_scope(paths, scope, ("routing", "matrix"), name)


def plan_providers(plan: dict[str, Any]) -> dict[str, list[str] | None]:
    """provider id -> model names known without asking the API (its configured default model)."""
    found: dict[str, list[str] | None] = {}
    for entry in plan.get("providers") or []:
        name = str(entry.get("module", "")).removeprefix("provider-")
        default = (entry.get("config") or {}).get("default_model")
        found[name] = [default] if default else None
    return found


def show_matrix(name: str | None, paths: AmplifierPaths | None = None) -> dict[str, Any]:
    from ..plans.plan import build_plan

    paths = _paths(paths)
    settings = load_settings(paths)
    matrix = load_matrix(name or active_matrix_name(settings), paths)
    providers = plan_providers(build_plan(settings).plan)
    overrides = (settings.merged.get("routing") or {}).get("overrides")
    roles = []
    for role, definition in matrix.data.roles.items():
        resolved = resolve_role(matrix, role, providers, overrides)
        roles.append({"role": role, "description": definition.description,
                      "provider": resolved["provider"] if resolved else None,
                      "model": resolved["model"] if resolved else None,
                      "config": resolved["config"] if resolved else {}})
    return {"matrix": matrix.name, "path": str(matrix.path), "providers": sorted(providers), "roles": roles}
