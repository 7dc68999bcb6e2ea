"""Providers in settings: the `config.providers` list per scope (what `provider use|add|edit|remove|reset`
write), the providers known here, and where each one's key comes from."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import UsageError
from .paths import AmplifierPaths
from .settings import Scope, load_settings, update_scope, writable_scope_path


def known_providers() -> dict[str, dict[str, str]]:
    """provider id -> what a user needs to know to configure it, as each installed provider module declares it
    (`[provider]` of its amplifier-module.toml); those that declare no key variable are left out."""
    from .module_facts import installed_provider_facts

    return {name: {"module": f"provider-{name}", "key_env": facts.key_env, "url_env": facts.base_url_env or "",
                   "description": facts.description or "installed module", "model": facts.default_model or ""}
            for name, facts in installed_provider_facts().items() if facts.key_env}


def provider_id(name: str) -> str:
    return name.removeprefix("provider-")


def _paths(paths: AmplifierPaths | None) -> AmplifierPaths:
    return paths or AmplifierPaths.discover()


def installed_providers() -> list[str]:
    from amplifier_core.loader import installed_entry_points

    return sorted({provider_id(name) for name in installed_entry_points() if name.startswith("provider-")})


def key_state(name: str, paths: AmplifierPaths) -> str:
    """Where the provider's key would come from: env, key store, or nowhere."""
    from .key_store import read_key_store

    env = known_providers().get(name, {}).get("key_env")
    if env is None:
        return "-"
    if os.environ.get(env):
        return f"{env} (environment)"
    if read_key_store(paths).get(env):
        return f"{env} (key store)"
    return f"{env} not set"


def _scope_entries(settings: Any, scope: Scope) -> list[dict[str, Any]]:
    return [dict(entry) for entry in (settings.scopes[scope].data.get("config") or {}).get("providers") or []]


def _check_known(name: str) -> None:
    known = known_providers()
    if name not in known and name not in installed_providers():
        available = ", ".join(dict.fromkeys([*known, *installed_providers()]))
        raise UsageError.single(f"unknown provider '{name}' (available: {available})",
                                fix="pick one of those, or give --source URI for a provider module of your own")


def provider_config(model: str | None, endpoint: str | None, key_env: str | None,
                    extra: dict[str, Any] | None = None) -> dict[str, Any]:
    config: dict[str, Any] = dict(extra or {})
    if model:
        config["default_model"] = model
    if endpoint:
        config["base_url"] = endpoint
    if key_env:
        config["api_key"] = "${" + key_env + "}"  # a reference: the key itself never lands in settings
    return config


def write_provider(name: str, scope: Scope, config: dict[str, Any], *, source: str | None = None,
                   make_default: bool, paths: AmplifierPaths | None = None, replace: bool = False) -> Path:
    """Add or update the provider's entry in the scope's `config.providers`; `make_default` gives it
    priority 1 (as upstream's `provider use` does) and takes priority 1 from the others of that scope."""
    paths = _paths(paths)
    name = provider_id(name)
    if source is None:
        _check_known(name)
    writable_scope_path(paths, scope)
    module = f"provider-{name}"
    entries = _scope_entries(load_settings(paths), scope)
    found = next((entry for entry in entries if entry.get("module") == module), None)
    if found is None:
        found = {"module": module}
        entries.append(found)
    merged = dict(config) if replace else {**(found.get("config") or {}), **config}
    if make_default:
        merged["priority"] = 1
        for entry in entries:
            if entry is not found and (entry.get("config") or {}).get("priority") == 1:
                entry["config"] = {key: value for key, value in entry["config"].items() if key != "priority"}
    found["config"] = merged
    if source:
        found["source"] = source
    return update_scope(paths, scope, ("config", "providers"), entries)


def edit_provider(name: str, scope: Scope, config: dict[str, Any], unset: list[str],
                  paths: AmplifierPaths | None = None) -> Path:
    paths = _paths(paths)
    module = f"provider-{provider_id(name)}"
    entries = _scope_entries(load_settings(paths), scope)
    found = next((entry for entry in entries if entry.get("module") == module), None)
    if found is None:
        raise UsageError.single(f"provider '{provider_id(name)}' is not configured in the {scope} settings",
                                fix=f"add it first: amplifier provider add {provider_id(name)}"
                                    f"{'' if scope == 'user' else ' --' + scope}")
    new = {key: value for key, value in {**(found.get("config") or {}), **config}.items() if key not in unset}
    found["config"] = new
    return update_scope(paths, scope, ("config", "providers"), entries)


def remove_provider(name: str, scope: Scope, paths: AmplifierPaths | None = None) -> Path:
    paths = _paths(paths)
    module = f"provider-{provider_id(name)}"
    entries = _scope_entries(load_settings(paths), scope)
    kept = [entry for entry in entries if entry.get("module") != module]
    if len(kept) == len(entries):
        raise UsageError.single(f"provider '{provider_id(name)}' is not configured in the {scope} settings",
                                fix="see `amplifier provider list` (Configured column)")
    return update_scope(paths, scope, ("config", "providers"), kept or None)


def reset_providers(scope: Scope, paths: AmplifierPaths | None = None) -> Path:
    return update_scope(_paths(paths), scope, ("config", "providers"), None)


def save_provider_key(name: str, key: str, paths: AmplifierPaths | None = None) -> tuple[str, Path]:
    from .key_store import save_key

    env = known_providers().get(provider_id(name), {}).get("key_env") or f"{provider_id(name).upper()}_API_KEY"
    if not key.strip() or "\n" in key.strip():
        raise UsageError.single("the key is empty or spans lines", fix="paste the key on one line")
    return env, save_key(_paths(paths), env, key)
