"""The mount plan's shape as pydantic models (unknown keys rejected) and the canonical dict form we build.

Canonical form handed to the kernel: `session.orchestrator`/`session.context` are `{module, source?, config?}`
dicts; `providers`/`tools`/`hooks` are lists of the same; `agents` is app data passed through.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

MODULE_LIST_SECTIONS = ("providers", "tools", "hooks")
MODULE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


def source_object_to_uri(value: Any) -> Any:
    """Upstream's object form `{type: git|file|package, ...}` becomes the equivalent URI string."""
    if not isinstance(value, dict):
        return value
    kind = value.get("type")
    if kind == "git" and isinstance(value.get("url"), str):
        uri = "git+" + value["url"].removeprefix("git+")
        if value.get("ref"):
            uri += f"@{value['ref']}"
        if value.get("subdirectory"):
            uri += f"#subdirectory={value['subdirectory']}"
        return uri
    if kind == "file" and isinstance(value.get("path"), str):
        return value["path"]
    if kind == "package" and isinstance(value.get("name"), str):
        return value["name"]
    raise ValueError(
        "source object must be {type: git, url, ref?, subdirectory?}, {type: file, path} or {type: package, name}"
    )


class ModuleEntry(BaseModel):
    """`{module, source?, config?}`: one module to mount."""

    model_config = ConfigDict(extra="forbid")

    module: str = Field(min_length=1)
    source: str | None = None
    config: dict[str, Any] | None = None
    instance_id: str | None = None

    @field_validator("source", mode="before")
    @classmethod
    def _source_object(cls, value: Any) -> Any:
        return source_object_to_uri(value)

    @field_validator("module")
    @classmethod
    def _plain_module_id(cls, value: str) -> str:
        # The id names a directory (.amplifier/modules/<id>), a package (amplifier_module_<id>) and an env var.
        if not MODULE_ID.fullmatch(value):
            raise ValueError(
                f"module id {value!r} must be letters, digits, '-' and '_' (e.g. tool-bash); "
                "put a path or URL under 'source:' instead"
            )
        return value


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
