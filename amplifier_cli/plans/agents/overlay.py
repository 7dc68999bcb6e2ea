"""A sub-agent's mount plan: its parent's plan with the agent's partial plan merged over it, by the same
rules as profile inheritance (module lists by id, config deep-merged, `exclude` applied first)."""

from __future__ import annotations

import copy
from typing import Any

from ..plan import preferred_provider, provider_module_id
from ..profiles.merge_rules import merge_profile_data
from .definitions import AgentDefinition


def plan_for_agent(
    parent_plan: dict[str, Any], agent: AgentDefinition, *, exclude: dict[str, list[str]] | None = None,
    route: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The child's plan. `exclude` (module ids per section, e.g. tool-task's `exclude_tools`) and the parent
    plan's `spawn:` policy are applied on top of the agent's own `exclude:`; the agent's own modules are
    merged after, so an agent that lists a tool itself still has it. The result's `agents` lists the names
    the child may delegate to. `route` (the routing matrix's answer for the agent's `model_role`: provider,
    model, config) makes that provider the child's preferred one, with that model and config."""
    overlay: dict[str, Any] = copy.deepcopy(agent.plan)
    combined_exclude = {key: list(value) if isinstance(value, list) else value
                        for key, value in agent.exclude.items() if key != "agents"}
    for section, ids in [*(exclude or {}).items(), ("tools", spawn_excluded_tools(parent_plan))]:
        current = combined_exclude.get(section)
        if current == "all" or not ids:
            continue
        combined_exclude[section] = [*(current or []), *ids]
    if combined_exclude:
        overlay["exclude"] = combined_exclude
    base = {key: value for key, value in parent_plan.items() if key != "agents"}
    plan = merge_profile_data(base, overlay)
    if agent.model:
        providers = plan.get("providers") or []
        if providers:
            target = preferred_provider(providers, plan)
            target["config"] = {**(target.get("config") or {}), "default_model": agent.model}
    elif route:
        apply_route(plan, route)
    return plan


def apply_route(plan: dict[str, Any], route: dict[str, Any]) -> None:
    """Put the routed provider first with the lowest priority (the orchestrator's pick), set to the routed model
    and carrying the candidate's config (e.g. reasoning_effort)."""
    providers = plan.get("providers") or []
    name = str(route["provider"])
    target = next((entry for entry in providers if entry.get("instance_id") == name), None) or next(
        (entry for entry in providers if entry.get("module") == provider_module_id(name)), None)
    if target is None:
        return
    lowest = min(_priority(entry) for entry in providers)
    target["config"] = {**(target.get("config") or {}), **(route.get("config") or {}),
                        "default_model": route["model"], "priority": lowest}
    plan["providers"] = [target, *(entry for entry in providers if entry is not target)]


def _priority(entry: dict[str, Any]) -> float:
    value = (entry.get("config") or {}).get("priority", 100)
    return value if isinstance(value, int | float) else 100


def spawn_excluded_tools(parent_plan: dict[str, Any]) -> list[str]:
    """The parent's tool module ids its `spawn:` policy keeps from sub-agents (`exclude_tools`, or every tool
    not in `tools`)."""
    policy = parent_plan.get("spawn") or {}
    excluded = list(policy.get("exclude_tools") or [])
    only = policy.get("tools")
    if only is not None:
        excluded += [entry.get("module") for entry in parent_plan.get("tools") or []
                     if isinstance(entry, dict) and entry.get("module") not in only]
    return excluded
