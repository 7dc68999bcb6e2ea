"""What `amplifier module validate` hands a bundled module in place of what an app or a user normally
supplies, so validation needs no secret, no network and no config.

A provider gets a placeholder key and a base URL on a loopback port nothing listens on: it mounts, every
structural and behavioural check runs, and a request it might make fails at once instead of leaving the
machine. context-persistent gets a transcript file in a scratch directory that is removed afterwards (in a
session the app's `session.transcript_path` capability names it). tool-mcp gets one server, the echo server it
ships (stdio, this interpreter), so its tools come from a real MCP connection. Stand-ins are used only when
the user passes no --config at all: a config given is exactly what mount() receives.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

PLACEHOLDER_KEY = "amplifier-validate-placeholder-not-a-key"
REFUSING_BASE_URL = "http://127.0.0.1:9"  # the discard port: connection refused, never a real server

_STAND_INS: dict[str, dict[str, Any]] = {
    "provider-anthropic": {"api_key": PLACEHOLDER_KEY, "base_url": REFUSING_BASE_URL},
    "provider-openai": {"api_key": PLACEHOLDER_KEY, "base_url": REFUSING_BASE_URL},
    # `transcript_path` is upstream's key; this project's module reads it as `path`, so either module works
    "context-persistent": {"transcript_path": "{scratch}/context.jsonl"},
    "tool-mcp": {"read_config_files": False, "servers": {"echo": {
        "command": "{python}", "args": ["-m", "amplifier_module_tool_mcp.echo_server"]}}},
}


def _filled(value: Any, scratch_dir: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{scratch}", str(scratch_dir)).replace("{python}", sys.executable)
    if isinstance(value, list):
        return [_filled(item, scratch_dir) for item in value]
    if isinstance(value, dict):
        return {key: _filled(item, scratch_dir) for key, item in value.items()}
    return value


def module_id_of(package_dir: Path) -> str:
    """`amplifier_module_provider_openai` -> `provider-openai`."""
    from amplifier_core.module_ids import id_from_name

    return id_from_name(package_dir.name)


def stand_in_config(module_id: str, scratch_dir: Path) -> dict[str, Any]:
    """The stand-in settings for ``module_id`` (empty for modules that need none)."""
    return {key: _filled(value, scratch_dir) for key, value in _STAND_INS.get(module_id, {}).items()}


def with_stand_ins(module_id: str, config: dict[str, Any], scratch_dir: Path) -> tuple[dict[str, Any], list[str]]:
    """The config mount() receives, and the names of the stand-in keys in it (none when ``config`` is given)."""
    if config:
        return config, []
    supplied = stand_in_config(module_id, scratch_dir)
    return supplied, sorted(supplied)
