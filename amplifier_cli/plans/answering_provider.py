"""The app's side of "which provider answers": the plan's providers as candidates for the shared rule
(amplifier_support.provider_choice), with the model names each module declares (module_facts)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from amplifier_support.provider_choice import (
    Candidate,
    PriorityError,
    choose,
    mount_name,
    only_offerer,
    read_priority,
)

from ..config.module_facts import entry_module_id, facts_of
from ..config.settings import SCOPES, Settings, scope_path
from ..errors import ConfigError


def default_provider_of(plan: Mapping[str, Any]) -> str | None:
    """The orchestrator's `default_provider` (loop-basic's key, which upstream orchestrators read too)."""
    session = plan.get("session")
    orchestrator = session.get("orchestrator") if isinstance(session, Mapping) else None
    config = orchestrator.get("config") if isinstance(orchestrator, Mapping) else None
    value = config.get("default_provider") if isinstance(config, Mapping) else None
    return str(value) if value else None


def can_mount(entry: Any, environ: Mapping[str, str]) -> bool:
    """Whether a provider entry will mount: credentials in its config, or one of the variables its module
    declares set (a module that declares none is assumed to mount)."""
    config = (entry.get("config") if isinstance(entry, dict) else None) or {}
    if not isinstance(config, dict) or config.get("api_key") or config.get("base_url"):
        return True
    variables = facts_of(entry_module_id(entry)).mount_env
    return not variables or any(environ.get(name) for name in variables)


def plan_candidates(plan: Mapping[str, Any], *, mountable_only: bool = False,
                    environ: Mapping[str, str] | None = None) -> list[tuple[Candidate, dict[str, Any]]]:
    """(candidate, plan entry) for each provider of the plan; a priority that is not a number counts as the
    default here (build_plan has already refused it with the file and key)."""
    environ = os.environ if environ is None else environ
    found = []
    for entry in plan.get("providers") or []:
        entry = {"module": entry} if isinstance(entry, str) else entry  # the short form of an entry
        if not isinstance(entry, dict) or (mountable_only and not can_mount(entry, environ)):
            continue
        module_id = entry_module_id(entry)
        config = entry.get("config") or {}
        try:
            priority = read_priority(config.get("priority") if isinstance(config, dict) else None)
        except PriorityError:
            priority = 100.0
        found.append((Candidate(name=mount_name(entry), module_id=module_id, priority=priority,
                                models=facts_of(module_id).models), entry))
    return found


def answering_entry(plan: Mapping[str, Any], *, model: str | None = None, mountable_only: bool = False,
                    environ: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """The plan entry of the provider that will answer (None when the plan has none)."""
    pairs = plan_candidates(plan, mountable_only=mountable_only, environ=environ)
    chosen = choose([candidate for candidate, _ in pairs], model=model, default_provider=default_provider_of(plan))
    return next((entry for candidate, entry in pairs if candidate is chosen), None)


def check_priorities(plan: Mapping[str, Any], settings: Settings, profile_file: Path) -> None:
    """Refuse a `priority` that is not a number, naming the file that set it (settings or the profile)."""
    for index, entry in enumerate(plan.get("providers") or []):
        config = entry.get("config") if isinstance(entry, dict) else None
        if not isinstance(config, dict) or "priority" not in config:
            continue
        try:
            read_priority(config["priority"])
        except PriorityError as error:
            module_id = entry_module_id(entry)
            file: Path | None = profile_file
            key_path = f"providers[{index}].config.priority"
            for scope in reversed(SCOPES):  # the last scope that sets it wins, as in the merge
                entries = (settings.scopes[scope].data.get("config") or {}).get("providers") or []
                if any(isinstance(e, dict) and e.get("module") == module_id
                       and "priority" in (e.get("config") or {}) for e in entries):
                    file = scope_path(settings.paths, scope)
                    key_path = f"config.providers[{module_id}].config.priority"
                    break
            raise ConfigError.single(f"{module_id}: {error}", file=file, key_path=key_path,
                                     fix="write a number, e.g. priority: 1 (lower answers first)") from error


def provider_for_model(plan: Mapping[str, Any], mounted: Iterable[str], model: str) -> str | None:
    """The mount name of the only mounted provider of the plan that offers `model` (`/model gpt-5-mini`), or None
    when none or several do."""
    names = set(mounted)
    offering = only_offerer([candidate for candidate, _ in plan_candidates(plan) if candidate.name in names], model)
    return offering.name if offering is not None else None
