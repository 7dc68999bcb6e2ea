"""Capability `routing.resolve_role(role | [roles]) -> {role, provider, model, config} | None`: what a sub-agent
or module that asks for a model role (upstream's `model_role`) gets, from the active routing matrix and the
providers this session mounts. The matrix is read on first use only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..config.settings import Settings


def role_resolver(settings: Settings, plan: dict[str, Any]) -> Callable[[Any], dict[str, Any] | None]:
    providers: dict[str, list[str] | None] = {}
    for entry in plan.get("providers") or []:
        default = (entry.get("config") or {}).get("default_model")
        providers[str(entry.get("module", "")).removeprefix("provider-")] = [default] if default else None
    loaded: dict[str, Any] = {}

    def resolve(roles: Any) -> dict[str, Any] | None:
        from ..config.routing_matrix import active_matrix_name, load_matrix, resolve_role

        if "matrix" not in loaded:
            loaded["matrix"] = load_matrix(active_matrix_name(settings), settings.paths)
        overrides = (settings.merged.get("routing") or {}).get("overrides")
        for role in [roles] if isinstance(roles, str) else list(roles):  # a fallback chain: first defined wins
            resolved = resolve_role(loaded["matrix"], role, providers, overrides)
            if resolved is not None:
                return resolved
        return None

    return resolve
