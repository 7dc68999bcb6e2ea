"""What `amplifier module validate` hands a bundled module in place of what an app or a user normally
supplies, so validation needs no secret, no network and no config.

What each module needs is what it declares in its amplifier-module.toml (see module_facts). A provider (one
that declares `key_env`) gets a placeholder key and a base URL on a loopback port nothing listens on: it mounts, every
structural and behavioural check runs, and a request it might make fails at once instead of leaving the
machine. context-persistent gets a transcript file in a scratch directory that is removed afterwards (in a
session the app's `session.transcript_path` capability names it). tool-mcp gets one server, the echo server it
ships (stdio, this interpreter), so its tools come from a real MCP connection. hooks-otel gets the same
refusing loopback URL as its collector, so validating never sends spans to one the user runs on localhost:4318.
Stand-ins are used only when the user passes no --config at all: a config given is exactly what mount()
receives.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ..config.module_facts import ModuleFacts, facts_of

PLACEHOLDER_KEY = "amplifier-validate-placeholder-not-a-key"
REFUSING_BASE_URL = "http://127.0.0.1:9"  # the discard port: connection refused, never a real server

def _filled(value: Any, scratch_dir: Path, package_dir: Path | None) -> Any:
    """The placeholders of `[validate] config`: {scratch} (a scratch directory), {python} (this interpreter) and
    {module} (the module's package directory, e.g. for a helper program it ships)."""
    if isinstance(value, str):
        value = value.replace("{scratch}", str(scratch_dir)).replace("{python}", sys.executable)
        return value.replace("{module}", str(package_dir)) if package_dir is not None else value
    if isinstance(value, list):
        return [_filled(item, scratch_dir, package_dir) for item in value]
    if isinstance(value, dict):
        return {key: _filled(item, scratch_dir, package_dir) for key, item in value.items()}
    return value


def module_id_of(package_dir: Path) -> str:
    """`amplifier_module_provider_openai` -> `provider-openai`."""
    from amplifier_core.module_ids import id_from_name

    return id_from_name(package_dir.name)


def stand_in_config(module_id: str, scratch_dir: Path, facts: ModuleFacts | None = None) -> dict[str, Any]:
    """The stand-in settings for ``module_id``: a provider that declares a key variable gets a placeholder key and
    a refusing base URL; any module gets what its amplifier-module.toml gives as `[validate] config`."""
    facts = facts if facts is not None else facts_of(module_id)
    stand_ins: dict[str, Any] = {"api_key": PLACEHOLDER_KEY, "base_url": REFUSING_BASE_URL} if facts.key_env else {}
    stand_ins.update(facts.validate_config or {})
    return {key: _filled(value, scratch_dir, facts.package_dir) for key, value in stand_ins.items()}


def with_stand_ins(module_id: str, config: dict[str, Any], scratch_dir: Path,
                   facts: ModuleFacts | None = None) -> tuple[dict[str, Any], list[str]]:
    """The config mount() receives, and the names of the stand-in keys in it (none when ``config`` is given)."""
    if config:
        return config, []
    supplied = stand_in_config(module_id, scratch_dir, facts)
    return supplied, sorted(supplied)
