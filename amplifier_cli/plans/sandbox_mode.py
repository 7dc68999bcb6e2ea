"""`--sandbox MODE`: set the sandbox mode of every module of a plan that runs commands for the model.

Those modules take a `sandbox:` config key (a mode, or a mapping with `mode`); the flag replaces the mode and
keeps the rest (write roots, network, required). Sub-agents' plans derive from the parent's, so they inherit it.
"""

from __future__ import annotations

from typing import Any

SANDBOXED_MODULES = ("tool-bash", "hook-shell")


def apply_sandbox_mode(plan: dict[str, Any], mode: str) -> None:
    for section in ("tools", "hooks"):
        for entry in plan.get(section) or []:
            if not isinstance(entry, dict) or entry.get("module") not in SANDBOXED_MODULES:
                continue
            config = entry.get("config")
            config = dict(config) if isinstance(config, dict) else {}
            current = config.get("sandbox")
            config["sandbox"] = {**current, "mode": mode} if isinstance(current, dict) else {"mode": mode}
            entry["config"] = config
