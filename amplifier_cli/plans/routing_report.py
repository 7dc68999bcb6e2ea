"""`amplifier routing show`: a routing matrix resolved against the providers the active profile mounts (with
settings and keys as a session would see them)."""

from __future__ import annotations

from typing import Any

from ..config.paths import AmplifierPaths
from ..config.routing_matrix import active_matrix_name, load_matrix, resolve_role
from ..config.settings import load_settings


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def plan_providers(plan: dict[str, Any]) -> dict[str, list[str] | None]:
    """provider id -> model names known without asking the API (its configured default model)."""
    found: dict[str, list[str] | None] = {}
    for entry in plan.get("providers") or []:
        name = str(entry.get("module", "")).removeprefix("provider-")
        default = (entry.get("config") or {}).get("default_model")
        found[name] = [default] if default else None
    return found


def show_matrix(name: str | None, paths: AmplifierPaths | None = None) -> dict[str, Any]:
    from .plan import build_plan

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
