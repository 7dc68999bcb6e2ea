"""Checks the session-building code runs before the first request, so a plan naming a module that cannot be
found is a configuration error (exit 2) listing every such module, and "no provider mounted" says what
would fix it."""

from __future__ import annotations

import difflib
import importlib.util
from typing import Any

from amplifier_core.module_ids import package_name
from amplifier_core.module_sources import ModuleLoadError, ModuleNotFoundError

from ..config.env_refs import env_ref_names
from ..config.module_facts import facts_of
from ..errors import ConfigError, Problem
from .mount_plan import module_ids
from .sources.resolver import LayeredModuleResolver


def check_plan_modules(plan: dict[str, Any], resolver: LayeredModuleResolver, *, fetch: bool = True) -> None:
    """Resolve (and fetch, for git sources) every module of the plan without importing any of them. Without
    ``fetch`` only whether some layer provides each module is checked (`profile list`: no clone, no network)."""
    problems: list[Problem] = []
    for role, module_id, source in module_ids(plan):
        key_path = f"session.{role}" if role in ("orchestrator", "context") else role
        try:
            found = resolver.resolve(module_id, source_hint=source)
            if fetch:
                found.resolve()
        except ModuleNotFoundError:
            if importlib.util.find_spec(package_name(module_id)) is None:  # the kernel's last fallback
                answers = "; ".join(f"{a.layer}: {a.detail}" for a in resolver.explain(module_id, source))
                problems.append(
                    Problem(
                        f"Module '{module_id}' not found (checked {answers})",
                        key_path=key_path,
                        fix=_not_found_fix(module_id),
                    )
                )
        except ModuleLoadError as exc:
            problems.append(Problem(str(exc), key_path=key_path))
    if problems:
        raise ConfigError("some modules of the mount plan cannot be loaded", problems)


def _not_found_fix(module_id: str) -> str:
    close = difflib.get_close_matches(module_id, _known_module_ids(), n=1, cutoff=0.75)
    guess = f"did you mean '{close[0]}'? If not, " if close else ""
    return (
        f"{guess}add 'source: <git+URL@ref | path>' to its entry, run 'amplifier source add {module_id} <URI>', "
        f"or see 'amplifier source show {module_id}'"
    )


def _known_module_ids() -> list[str]:
    """Ids of the installed modules (entry points `amplifier.modules`, the bundled ones among them)."""
    from amplifier_core.loader import installed_entry_points

    return sorted(installed_entry_points())


def no_provider_message(plan: dict[str, Any], profile_name: str) -> str:
    """Why no provider is mounted and what would fix it: the keys its providers read, or the demo profile."""
    names: list[str] = []
    for entry in plan.get("providers") or []:
        referenced = env_ref_names(entry.get("config") or {})
        default = facts_of(entry.get("module", "")).key_env  # as the module declares it
        for name in referenced or ([default] if default else []):
            if name not in names:
                names.append(name)
    modules = ", ".join(e.get("module", "?") for e in plan.get("providers") or []) or "none"
    keys = " or ".join(names) if names else "the provider's credentials"
    return (
        f"No provider is available in profile '{profile_name}' (providers: {modules}); each needs credentials. "
        f"Set {keys}, or try 'amplifier run -P demo' (a scripted model that needs no key)."
    )
