"""The mode a plan's commands run under, for the modules that keep to it without running commands themselves
(tool-filesystem stays read-only under `read-only`).

The confined modules (`[sandbox] confined = true` in their amplifier-module.toml: tool-bash, hook-shell) apply
the session's sandbox themselves (capability `session.sandbox`: the profile's `sandbox:` under their own keys,
`--sandbox`'s mode over both), so the plan is never rewritten and a sub-agent inherits it as session data.
"""

from __future__ import annotations

from typing import Any

from amplifier_support.sandbox_modes import mode_of

from ..config.module_facts import facts_of


def plan_sandbox_mode(plan: dict[str, Any], session: dict[str, Any]) -> str | None:
    """`--sandbox`'s mode, else the first confined module's own, else the profile's; None when none says."""
    forced = session.get("mode")
    if isinstance(forced, str):
        return forced
    for section in ("tools", "hooks"):
        for entry in plan.get(section) or []:
            if isinstance(entry, dict) and facts_of(str(entry.get("module", ""))).confined:
                mode = mode_of((entry.get("config") or {}).get("sandbox"))
                if mode is not None:
                    return mode
    return mode_of(session.get("defaults"))
