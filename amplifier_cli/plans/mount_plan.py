"""The mount plan's shape as pydantic models (unknown keys rejected) and the canonical dict form we build.

Canonical form handed to the kernel: `session.orchestrator`/`session.context` are `{module, source?, config?}`
dicts; `providers`/`tools`/`hooks` are lists of the same; `agents` is app data passed through.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from ..config.module_entry import ModuleEntry, source_object_to_uri

MODULE_LIST_SECTIONS = ("providers", "tools", "hooks")


def _entry_from_shorthand(value: Any) -> Any:
    return {"module": value} if isinstance(value, str) else value


class SessionSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    orchestrator: ModuleEntry | None = None
    context: ModuleEntry | None = None
    orchestrator_source: str | None = None
    context_source: str | None = None
    injection_budget_per_turn: int | None = None
    injection_size_limit: int | None = None
    debug: bool | None = None
    raw_debug: bool | None = None
    raw: bool | None = None
    metadata: dict[str, Any] | None = None

    @field_validator("orchestrator", "context", mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        return _entry_from_shorthand(value)


class ConfigOnly(BaseModel):
    """Upstream's top-level `orchestrator: {config: ...}` used with the string form of session.orchestrator."""

    model_config = ConfigDict(extra="forbid")

    config: dict[str, Any] | None = None


class SpawnSection(BaseModel):
    """Upstream's `spawn:`: which of the parent's tools its sub-agents inherit (module ids), before the agent's
    own plan is merged: all but `exclude_tools`, or only `tools`."""

    model_config = ConfigDict(extra="forbid")

    exclude_tools: list[str] | None = None
    tools: list[str] | None = None


class MountPlanSections(BaseModel):
    """Every key a mount plan may hold; all optional so a partial profile file validates on its own."""

    model_config = ConfigDict(extra="forbid")

    session: SessionSection | None = None
    orchestrator: ConfigOnly | None = None
    context: ConfigOnly | None = None
    providers: list[ModuleEntry] | None = None
    tools: list[ModuleEntry] | None = None
    hooks: list[ModuleEntry] | None = None
    agents: Any = None
    spawn: SpawnSection | None = None

    @field_validator("agents", mode="before")
    @classmethod
    def _agents_shape(cls, value: Any) -> Any:
        if value is None or value in ("all", "none") or isinstance(value, dict):
            return value
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return value
        raise ValueError("agents must be 'all', 'none', a list of agent names, or a mapping of agent definitions")


class MountPlan(MountPlanSections):
    """A complete plan: orchestrator and context are required."""

    @model_validator(mode="after")
    def _required(self) -> MountPlan:
        missing = [
            name for name in ("orchestrator", "context") if self.session is None or getattr(self.session, name) is None
        ]
        if missing:
            raise ValueError("session needs " + " and ".join(f"session.{m}" for m in missing))
        return self


def canonicalize_plan(data: dict[str, Any]) -> dict[str, Any]:
    """Fold upstream shorthands (string orchestrator, `orchestrator_source`, top-level `orchestrator.config`,
    object-form sources) into the canonical dict form. Input must already have passed MountPlanSections."""
    plan = {key: value for key, value in data.items() if key not in ("orchestrator", "context")}
    session = dict(plan.get("session") or {})
    for role in ("orchestrator", "context"):
        entry = session.get(role)
        source = session.pop(f"{role}_source", None)
        top_config = (data.get(role) or {}).get("config")
        if entry is None:
            if source is not None or top_config is not None:
                session[role] = {key: value for key, value in (("source", source), ("config", top_config)) if value}
            continue
        entry = dict(_entry_from_shorthand(entry))
        if source is not None and "source" not in entry:
            entry["source"] = source
        if top_config is not None:
            entry["config"] = {**top_config, **(entry.get("config") or {})}
        if "source" in entry:
            entry["source"] = source_object_to_uri(entry["source"])
        session[role] = entry
    if session or "session" in plan:
        plan["session"] = session
    for section in MODULE_LIST_SECTIONS:
        if plan.get(section) is not None:
            plan[section] = [
                {**item, "source": source_object_to_uri(item["source"])} if "source" in item else dict(item)
                for item in plan[section]
            ]
    return plan


def module_ids(plan: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """(role, module id, source) for every module the plan mounts, in kernel load order."""
    found: list[tuple[str, str, str | None]] = []
    session = plan.get("session") or {}
    for role in ("orchestrator", "context"):
        entry = session.get(role)
        if isinstance(entry, dict) and entry.get("module"):
            found.append((role, entry["module"], entry.get("source")))
    for section in MODULE_LIST_SECTIONS:
        for entry in plan.get(section) or []:
            if entry.get("module"):
                found.append((section, entry["module"], entry.get("source")))
    return found
