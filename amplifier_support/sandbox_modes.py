"""The sandbox's modes: their names, their order and how a `sandbox:` value or a `--sandbox` flag is read.

One file because the names were spelled out in the sandbox policy, its settings schema, the profile schema and
the command line, and the shorthand (`sandbox: read-only`, YAML's `off` read as false) in two places.
"""

from __future__ import annotations

from typing import Any, Literal

SandboxMode = Literal["workspace-write", "read-only", "off"]
MODES: tuple[SandboxMode, ...] = ("workspace-write", "read-only", "off")
"""Every mode, the default first (what `--sandbox` lists, in this order)."""
DEFAULT_MODE: SandboxMode = MODES[0]
READ_ONLY: SandboxMode = "read-only"
OFF: SandboxMode = "off"


def parse_mode(value: Any) -> SandboxMode:
    """A mode from a flag or a config value (YAML's false is `off`); ValueError listing the modes otherwise."""
    if value is False:
        return OFF
    if isinstance(value, str) and value in MODES:
        return value
    raise ValueError(f"unknown sandbox mode {value!r}; use one of {', '.join(MODES)}")


def normalize_sandbox_value(value: Any) -> Any:
    """``sandbox: read-only`` means ``{mode: read-only}``; YAML reads a bare ``off`` as false, so false (also as
    ``mode``) means off and true means the default. Anything else is returned for the schema to judge."""
    if value is False:
        return {"mode": OFF}
    if value is True:
        return {}
    if isinstance(value, str):
        return {"mode": value}
    if isinstance(value, dict) and value.get("mode") is False:
        return {**value, "mode": OFF}
    return value


def mode_of(value: Any) -> str | None:
    """The mode a `sandbox:` value names (its shorthand read as above), or None when it names none."""
    normalized = normalize_sandbox_value(value)
    mode = normalized.get("mode") if isinstance(normalized, dict) else None
    return mode if isinstance(mode, str) else None
