"""What a sub-agent or module that asks for a model role (upstream's `model_role`) gets: the provider and model
the active routing matrix names for it, among the providers this session mounts. Two capabilities offer it:

- `routing.resolve_role(role | [roles])` -> awaitable `{role, provider, model, config} | None`;
- `model_role_resolver` (upstream's name), an object with `async resolve(role | [roles])` -> a list of
  preferences (`provider`, `model`, `config`), empty when no role resolves.

The matrix is read on first use only; a glob candidate asks the mounted provider for its models once per session
(when the provider cannot list them, its configured default model is what it is known to offer)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..config.settings import Settings


@dataclass(frozen=True)
class RolePreference:
    """One resolved preference in the shape upstream's consumers read (`.provider`, `.model`, `.config`)."""

    provider: str
    model: str
    config: dict[str, Any] = field(default_factory=dict)


def plan_provider_ids(plan: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The names a matrix candidate may use for each provider entry: its module type and its instance id."""
    found: dict[str, dict[str, Any]] = {}
    for entry in plan.get("providers") or []:
        for name in (entry.get("instance_id"), str(entry.get("module", "")).removeprefix("provider-")):
            if name:
                found.setdefault(str(name), entry)
    return found


def role_resolver(settings: Settings, plan: dict[str, Any],
                  mounted: Callable[[], dict[str, Any]]) -> Callable[[Any], Awaitable[dict[str, Any] | None]]:
    """`mounted()` gives the session's mounted providers by name (they exist only after initialize())."""
    entries = plan_provider_ids(plan)
    loaded: dict[str, Any] = {}
    model_lists: dict[str, list[str] | None] = {}

    async def list_models(provider_id: str) -> list[str] | None:
        if provider_id not in model_lists:
            model_lists[provider_id] = await _models_of(mounted(), provider_id, entries[provider_id])
        return model_lists[provider_id]

    async def resolve(roles: Any) -> dict[str, Any] | None:
        from ..config.routing_matrix import active_matrix_name, load_matrix, resolve_roles

        if "matrix" not in loaded:
            loaded["matrix"] = load_matrix(active_matrix_name(settings), settings.paths)
        overrides = (settings.merged.get("routing") or {}).get("overrides")
        return await resolve_roles(loaded["matrix"], roles, entries, list_models, overrides)

    return resolve


class MatrixRoleResolver:
    """Upstream's `model_role_resolver` contract over `routing.resolve_role`."""

    def __init__(self, resolve: Callable[[Any], Awaitable[dict[str, Any] | None]]) -> None:
        self._resolve = resolve

    async def resolve(self, model_role: str | list[str]) -> list[RolePreference]:
        found = await self._resolve(model_role)
        return [RolePreference(found["provider"], found["model"], dict(found["config"]))] if found else []


async def _models_of(providers: dict[str, Any], provider_id: str, entry: dict[str, Any]) -> list[str] | None:
    default = (entry.get("config") or {}).get("default_model")
    provider = providers.get(provider_id) or providers.get(f"provider-{provider_id}")
    if provider is not None and hasattr(provider, "list_models"):
        try:
            return [str(getattr(item, "id", item)) for item in await provider.list_models()]
        except Exception:  # a provider that cannot list its models still offers the one it is set to use
            pass
    return [default] if default else None
