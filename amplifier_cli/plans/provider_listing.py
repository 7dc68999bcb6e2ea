"""Which providers `amplifier provider list|current` report, and the provider entry a probe mounts: the
settings' providers resolved against the plan a session would build."""

from __future__ import annotations

from typing import Any

from ..config.paths import AmplifierPaths
from ..config.provider_settings import installed_providers, key_state, known_providers, provider_id
from ..config.settings import SCOPES, load_settings
from ..errors import UsageError


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def provider_listing(paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    paths = _paths(paths)
    settings = load_settings(paths)
    configured = {provider_id(entry.get("module", "")) for entry in settings.provider_overrides}
    default = current_provider(paths).get("id")
    known = known_providers()
    names = list(dict.fromkeys([*known, *installed_providers()]))
    return [{"id": name, "module": f"provider-{name}",
             "description": known.get(name, {}).get("description", "installed module"),
             "key": key_state(name, paths), "configured": name in configured, "default": name == default}
            for name in names]


def current_provider(paths: AmplifierPaths | None = None, bundle: str | None = None) -> dict[str, Any]:
    """The provider the next session prefers (lowest priority), its model, and the scope that configured it."""
    from .plan import build_plan, preferred_provider

    paths = _paths(paths)
    settings = load_settings(paths)
    built = build_plan(settings, bundle)
    providers = built.plan.get("providers") or []
    if not providers:
        return {"id": None, "module": None, "model": None, "scope": None, "profile": built.profile_name}
    entry = preferred_provider(providers, built.plan)
    scope = next((s for s in reversed(SCOPES) for e in ((settings.scopes[s].data.get("config") or {})
                                                           .get("providers") or [])
                  if e.get("module") == entry["module"]), None)
    config = entry.get("config") or {}
    return {"id": provider_id(entry["module"]), "module": entry["module"],
            "model": config.get("default_model") or config.get("model"), "scope": scope,
            "endpoint": config.get("base_url"), "profile": built.profile_name}


def provider_entry(name: str | None, bundle: str | None, paths: AmplifierPaths) -> tuple[Any, dict[str, Any], str]:
    from .plan import build_plan, preferred_provider

    settings = load_settings(paths)
    built = build_plan(settings, bundle, provider=name)
    providers = built.plan.get("providers") or []
    if not providers:
        raise UsageError.single(f"profile '{built.profile_name}' mounts no provider",
                                fix="amplifier provider use anthropic (or openai)")
    entry = providers[0] if name else preferred_provider(providers, built.plan)
    return settings, entry, built.profile_name
