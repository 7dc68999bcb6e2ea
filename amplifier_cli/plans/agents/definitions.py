"""One agent definition: what a sub-agent is (name, description, instruction) and how its session differs
from its parent's (a partial mount plan merged over the parent's plan by module id).

Agents come from YAML files, Markdown files (YAML frontmatter + body = instruction) and a profile's
`agents:` mapping; all three are validated by the same schema, so an error names the file, line and key.

Claude Code's sub-agent files load too: `tools` given as tool NAMES (a list, or a comma-separated string) limits
which of the parent's tools the sub-agent gets (`tool_names`), instead of listing modules to mount; Claude's
names (Read, Bash, ...) mean the same tools here. `model: inherit` (and Claude's sonnet/opus/haiku aliases, which
name no model of a provider here) keep the parent's model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from ...config.schema_errors import validate_document
from ...config.source_uri import normalize_source_uri
from ...config.yaml_document import YamlDocument
from ...errors import Problem
from ..mount_plan import MODULE_LIST_SECTIONS, ModuleEntry, SessionSection, canonicalize_plan
from ..profiles.schema import ExcludeSection, instruction_text


class AgentMeta(BaseModel):
    """Upstream's `meta: {name, description, model_role}` block."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    description: str | None = None
    model_role: str | list[str] | None = None


CLAUDE_TOOL_NAMES = {
    "Read": "read_file", "Write": "write_file", "Edit": "edit_file", "MultiEdit": "edit_file", "Glob": "glob",
    "Grep": "grep", "Bash": "bash", "BashOutput": "bash_output", "WebFetch": "web_fetch",
    "WebSearch": "web_search", "TodoWrite": "todo", "Task": "task", "TaskOutput": "task_output", "Skill": "load_skill",
}
"""Claude Code's tool names -> this app's, so a `tools: Read, Grep` line written for Claude Code works here."""
INHERITED_MODELS = frozenset({"inherit", "sonnet", "opus", "haiku"})


def tool_name_list(value: Any) -> list[str] | None:
    """Claude Code's form of `tools` (names, not module entries) as a list of this app's tool names; None when
    `value` is upstream's module-list form (or absent)."""
    if isinstance(value, str):
        names = [part.strip() for part in value.split(",")]
    elif isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        names = [str(item).strip() for item in value]
    else:
        return None
    return list(dict.fromkeys(CLAUDE_TOOL_NAMES.get(name, name) for name in names if name))


def agent_selection(value: Any) -> Any:
    """Which agents a session may delegate to: 'all', 'none' or a list of names (None = inherit)."""
    if value is None or value in ("all", "none"):
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    raise ValueError("agents must be 'all', 'none' or a list of agent names")


class AgentFile(BaseModel):
    """Every key an agent definition may hold (a file, or one entry of a profile's `agents:` mapping)."""

    model_config = ConfigDict(extra="forbid")

    meta: AgentMeta | None = None
    name: str | None = None
    description: str | None = None
    instruction: str | None = None
    model: str | None = None
    # upstream's routing: a role (or fallback chain of roles) the active routing matrix resolves to a provider and
    # model when the agent is spawned; `provider_preferences` is accepted, not used here
    model_role: str | list[str] | None = None
    provider_preferences: list[dict[str, Any]] | None = None
    session: SessionSection | None = None
    providers: list[ModuleEntry] | None = None
    tools: list[ModuleEntry] | None = None
    hooks: list[ModuleEntry] | None = None
    exclude: ExcludeSection | None = None
    agents: Any = None
    color: str | None = None  # Claude Code's display colour; accepted, not used
    # `worktree`: the agent works in a git worktree of its own, on a new branch (sessions/worktrees.py)
    isolation: Literal["worktree", "none"] | None = None

    @field_validator("agents", mode="before")
    @classmethod
    def _agents(cls, value: Any) -> Any:
        return agent_selection(value)

    @field_validator("instruction", mode="before")
    @classmethod
    def _instruction_text(cls, value: Any) -> Any:
        return instruction_text(value)


@dataclass
class AgentDefinition:
    name: str
    description: str
    instruction: str | None = None
    plan: dict[str, Any] = field(default_factory=dict)  # partial canonical plan: session/providers/tools/hooks
    exclude: dict[str, Any] = field(default_factory=dict)
    agents: Any = None  # sub-agent visibility: None (inherit), 'all', 'none', [names]
    model: str | None = None
    origin: str = "profile"  # project | user | profile
    path: str | None = None
    tool_names: list[str] | None = None  # Claude Code's `tools`: only these of the parent's tools (None: all)
    model_role: str | list[str] | None = None  # resolved through the routing matrix at spawn (an explicit model wins)
    isolation: str | None = None  # "worktree": the sub-agent works in a git worktree of its own

    def as_dict(self) -> dict[str, Any]:
        """Plain, JSON-safe data: the form kept in the `agents.catalog` capability and printed by --json."""
        return {
            "name": self.name,
            "description": self.description,
            "instruction": self.instruction,
            "plan": self.plan,
            "exclude": self.exclude,
            "agents": self.agents,
            "model": self.model,
            "origin": self.origin,
            "path": self.path,
            "tool_names": self.tool_names,
            "model_role": self.model_role,
            "isolation": self.isolation,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AgentDefinition:
        known = {key: data[key] for key in cls.__dataclass_fields__ if key in data}
        known.setdefault("name", "?")
        known.setdefault("description", data.get("description") or f"Agent: {known['name']}")
        return cls(**known)


def definition_from_document(
    doc: YamlDocument, *, fallback_name: str, origin: str, key_path: tuple[str, ...] = ()
) -> tuple[AgentDefinition | None, list[Problem]]:
    """Validate one definition into an AgentDefinition: the whole document (an agent file), or the value at
    `key_path` inside it (one entry of a profile's `agents:` mapping). Problems name file, line and key."""
    inner = doc if not key_path else _sub_document(doc, key_path)
    payload = inner.data if inner.data is not None else {}
    if not isinstance(payload, dict):
        return None, [
            Problem(
                "an agent definition must be a mapping (description, instruction, tools, ...)",
                doc.path,
                doc.line_of(key_path),
                ".".join(key_path) or None,
                "write e.g. 'description: ...' and 'instruction: |' under the agent's name",
            )
        ]
    tool_names = tool_name_list(payload.get("tools"))
    if tool_names is not None:
        payload = {key: value for key, value in payload.items() if key != "tools"}
    model, problems = validate_document(AgentFile, inner, data=payload)
    if problems:
        prefix = ".".join(key_path)
        return None, [
            Problem(p.message, p.file, p.line, f"{prefix}.{p.key_path}" if prefix and p.key_path else
                    (p.key_path or prefix or None), p.fix)
            for p in problems
        ]
    clean = model.model_dump(exclude_unset=True)
    meta = clean.get("meta") or {}
    name = meta.get("name") or clean.get("name") or fallback_name
    description = meta.get("description") or clean.get("description") or f"Agent: {name}"
    instruction = clean.get("instruction")
    if instruction is None and not key_path and doc.body:
        instruction = doc.body
    plan = canonicalize_plan({key: clean[key] for key in ("session", *MODULE_LIST_SECTIONS) if key in clean})
    _absolutize_sources(plan, doc.path.parent)
    exclude = {key: value for key, value in (clean.get("exclude") or {}).items() if value is not None}
    definition = AgentDefinition(
        name=name,
        description=description.strip(),
        instruction=instruction.strip() if isinstance(instruction, str) and instruction.strip() else None,
        plan=plan,
        exclude=exclude,
        agents=clean.get("agents"),
        model=None if clean.get("model") in INHERITED_MODELS else clean.get("model"),
        origin=origin,
        path=str(doc.path),
        tool_names=tool_names,
        model_role=clean.get("model_role") or meta.get("model_role"),
        isolation=clean.get("isolation") if clean.get("isolation") != "none" else None,
    )
    return definition, []


def _sub_document(doc: YamlDocument, key_path: tuple[str, ...]) -> YamlDocument:
    """The value at `key_path` as a document of its own, keeping the original file's line numbers."""
    data: Any = doc.data
    for key in key_path:
        data = data.get(key) if isinstance(data, dict) else None
    depth = len(key_path)
    lines = {path[depth:]: line for path, line in doc.lines.items() if path[:depth] == key_path}
    return YamlDocument(path=doc.path, data=data, lines=lines)


def _absolutize_sources(plan: dict[str, Any], base_dir: Path) -> None:
    """A relative `source:` in an agent file is relative to that file, as in profiles."""
    entries = [*(plan.get("session") or {}).values()]
    for section in MODULE_LIST_SECTIONS:
        entries += plan.get(section) or []
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("source"), str):
            entry["source"] = normalize_source_uri(entry["source"], base_dir)
