"""`amplifier routing show`: a routing matrix resolved against the providers the active profile mounts (with
settings and keys as a session would see them)."""

from __future__ import annotations

import asyncio
from typing import Any

from ..config.paths import AmplifierPaths
from ..config.routing_matrix import active_matrix_name, load_matrix, resolve_roles
from ..config.settings import load_settings


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def show_matrix(name: str | None, paths: AmplifierPaths | None = None) -> dict[str, Any]:
    """Each role resolved as a session of the active profile would: a glob candidate asks its provider (mounted
    by itself, as `provider models` does) for the models it offers."""
    from ..plans.plan import build_plan
    from .model_roles import plan_provider_ids

    paths = _paths(paths)
    settings = load_settings(paths)
    matrix = load_matrix(name or active_matrix_name(settings), paths)
    built = build_plan(settings)
    entries = plan_provider_ids(built.plan)
    overrides = (settings.merged.get("routing") or {}).get("overrides")
    model_lists: dict[str, list[str] | None] = {}

    async def list_models(provider_id: str) -> list[str] | None:
        if provider_id not in model_lists:
            model_lists[provider_id] = await _listed_models(settings, entries[provider_id], built.profile_name)
        return model_lists[provider_id]

    async def resolve_all() -> list[dict[str, Any]]:
        roles = []
        for role, definition in matrix.data.roles.items():
            resolved = await resolve_roles(matrix, role, entries, list_models, overrides)
            roles.append({"role": role, "description": definition.description,
                          "provider": resolved["provider"] if resolved else None,
                          "model": resolved["model"] if resolved else None,
                          "config": resolved["config"] if resolved else {}})
        return roles

    providers = sorted({str(entry.get("module", "")).removeprefix("provider-") for entry in entries.values()})
    return {"matrix": matrix.name, "path": str(matrix.path), "providers": providers,
            "roles": asyncio.run(resolve_all())}


async def _listed_models(settings: Any, entry: dict[str, Any], profile_name: str) -> list[str] | None:
    """What `provider models` lists for this entry; its configured default model when it cannot be asked."""
    from .provider_probe import model_names, mounted_provider

    try:
        async with mounted_provider(settings, entry, profile_name) as provider:
            return [row["id"] for row in await model_names(provider)]
    except Exception:  # unreachable, not installed, no key: the configured model still counts
        default = (entry.get("config") or {}).get("default_model")
        return [default] if default else None
