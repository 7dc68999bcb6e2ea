"""The sandbox of every module of a plan that runs commands for the model: those that say so in their
amplifier-module.toml (`[sandbox] confined = true`: tool-bash, hook-shell).

Those modules take a `sandbox:` config key (a mode, or a mapping with `mode`). A profile's top-level
`sandbox:` is the default for them (their own keys win); `--sandbox MODE` then replaces the mode and keeps
the rest (write roots, network, required). Sub-agents' plans derive from the parent's, so they inherit both.
"""

from __future__ import annotations

from typing import Any

from amplifier_support.sandbox_modes import normalize_sandbox_value

from ..config.module_facts import facts_of


def _sandboxed_entries(plan: dict[str, Any]) -> list[dict[str, Any]]:
    return [entry for section in ("tools", "hooks") for entry in plan.get(section) or []
            if isinstance(entry, dict) and facts_of(str(entry.get("module", ""))).confined]


def _own_sandbox(entry: dict[str, Any]) -> dict[str, Any]:
    current = normalize_sandbox_value((entry.get("config") or {}).get("sandbox"))  # `off`, `read-only`, ...
    return dict(current) if isinstance(current, dict) else {}


def _set_sandbox(entry: dict[str, Any], value: dict[str, Any]) -> None:
    entry["config"] = {**(entry.get("config") or {}), "sandbox": value}


def apply_profile_sandbox(plan: dict[str, Any], defaults: dict[str, Any] | None) -> None:
    """A profile's `sandbox:` under each sandboxed module's own `sandbox` keys."""
    if not defaults:
        return
    for entry in _sandboxed_entries(plan):
        _set_sandbox(entry, {**defaults, **_own_sandbox(entry)})


def apply_sandbox_mode(plan: dict[str, Any], mode: str) -> None:
    """`--sandbox MODE`: the mode of every sandboxed module, whatever the profile says."""
    for entry in _sandboxed_entries(plan):
        _set_sandbox(entry, {**_own_sandbox(entry), "mode": mode})


def plan_sandbox_mode(plan: dict[str, Any], defaults: dict[str, Any] | None) -> str | None:
    """The mode a plan's commands run under (its first sandboxed module's, which `--sandbox` and the profile's
    `sandbox:` set), else the profile's own; None when neither says. The file tools read it to stay read-only."""
    for entry in _sandboxed_entries(plan):
        mode = _own_sandbox(entry).get("mode")
        if isinstance(mode, str):
            return mode
    mode = defaults.get("mode") if isinstance(defaults, dict) else defaults
    return mode if isinstance(mode, str) else None
