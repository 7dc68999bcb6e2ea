"""tool-skills: the ``load_skill`` tool, compatible with upstream's (operations list, search, info, load and their
result shapes; config keys ``skills``, ``skills_dirs``, ``skills_dir``, ``include_defaults``, ``visibility``).

Progressive disclosure: the names and descriptions of the skills are added to every model request as a system
message (not stored in the transcript); the body of a skill is returned only when the model loads it; the other
files of a skill are read with the file tools (the skill folders are added to tool-filesystem's read roots
through the capability ``filesystem.read_roots``).

Skills of the project (``.amplifier/skills/``, ``.claude/skills/``) are read only when the app says the project
is trusted (capability ``session.project_trusted`` is True; absent means untrusted): a skill tells the model
what to do, including what to run.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from amplifier_core import HookResult, ToolResult
from amplifier_core.module_config import ModuleConfig, parse_module_config
from amplifier_support.capability_names import (
    APP_USER_CONFIG_DIR,
    FILESYSTEM_READ_ROOTS,
    OBSERVABILITY_EVENTS,
    SESSION_PROJECT_DIR,
    SESSION_PROJECT_TRUSTED,
    SESSION_WORKING_DIR,
    SKILLS_CATALOG,
)

from .catalog import Skill, SkillCatalog, SkillSource, discover, skill_body, skill_files

__amplifier_module_type__ = "tool"
__all__ = ["SkillsConfig", "SkillsTool", "mount"]

logger = logging.getLogger(__name__)

MODULE_ID = "tool-skills"
SKILLS_DISCOVERED_EVENT = "skills:discovered"
SKILL_LOADED_EVENT = "skill:loaded"
PROJECT_SKILL_DIRS = (".amplifier/skills", ".claude/skills")


class VisibilityConfig(ModuleConfig):
    """Upstream's ``visibility`` block: how the list of skills reaches the model."""

    enabled: bool = True
    inject_role: Literal["system", "user"] = "system"
    max_skills_visible: int = Field(default=50, ge=0)
    ephemeral: bool = True
    priority: int = 20


class SkillsConfig(ModuleConfig):
    skills: list[str] | str | None = None  # upstream: skill sources (local paths here; git URLs are not fetched)
    skills_dirs: list[str] | str | None = None
    skills_dir: str | None = None
    include_defaults: bool = True  # the user's and (when trusted) the project's skill directories
    cache_dir: str | None = None  # upstream's cache for git sources; accepted, unused
    visibility: VisibilityConfig = Field(default_factory=VisibilityConfig)


def _capability(coordinator: Any, name: str) -> Any:
    try:
        return coordinator.get_capability(name) if coordinator is not None else None
    except Exception:  # a coordinator without capabilities
        return None


def _as_list(value: list[str] | str | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def skill_sources(config: SkillsConfig, coordinator: Any) -> list[SkillSource]:
    """Where skills are read from, lowest precedence first: the user's directories, the project's (trusted
    only), then the directories the settings and the profile name."""
    project = _capability(coordinator, SESSION_PROJECT_DIR) or _capability(coordinator, SESSION_WORKING_DIR)
    base = Path(str(project)) if project else Path.cwd()

    def located(raw: str) -> Path:
        path = Path(os.path.expanduser(raw))
        return path if path.is_absolute() else base / path

    sources: list[SkillSource] = []
    if config.include_defaults:
        home = Path.home()
        user_dirs = [home / ".claude" / "skills", home / ".amplifier" / "skills"]
        config_dir = _capability(coordinator, APP_USER_CONFIG_DIR)
        if config_dir:
            user_dirs.append(Path(str(config_dir)) / "skills")
        if os.environ.get("AMPLIFIER_SKILLS_DIR"):
            user_dirs.append(located(os.environ["AMPLIFIER_SKILLS_DIR"]))
        sources += [SkillSource("user", path) for path in user_dirs]
        if project and _capability(coordinator, SESSION_PROJECT_TRUSTED) is True:
            sources += [SkillSource("project", base / relative) for relative in PROJECT_SKILL_DIRS]
    settings = (getattr(coordinator, "config", None) or {}).get("skills") if coordinator is not None else None
    if isinstance(settings, dict):
        sources += [SkillSource("settings", located(str(raw))) for raw in _as_list(settings.get("dirs"))]
    named = [*_as_list(config.skills_dir), *_as_list(config.skills_dirs), *_as_list(config.skills)]
    for raw in named:
        if raw.startswith(("git+", "http://", "https://")):
            logger.warning("tool-skills: %s is a remote skill source, which this tool-skills does not fetch; "
                           "clone it and name the directory in skills_dirs", raw)
            continue
        sources.append(SkillSource("profile", located(raw)))
    return sources


class SkillsTool:
    """``load_skill``: list, search, info, or load one skill's body."""

    name = "load_skill"
    description = (
        "Load domain knowledge from a skill: instructions, workflows and standards for a kind of task. The "
        "available skills are listed in the system prompt; load one when the task matches its description. "
        "load_skill(skill_name=NAME) returns the skill's instructions and its skill_directory: files the skill "
        "mentions are relative to that folder, read them with read_file(skill_directory + '/' + path). "
        "list=true lists all skills, search=TERM filters them, info=NAME gives metadata without the body."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "skill_name": {"type": "string", "description": "Name of the skill to load."},
            "list": {"type": "boolean", "description": "If true, list all available skills."},
            "search": {"type": "string", "description": "Filter skills by a word in the name or description."},
            "info": {"type": "string", "description": "Metadata of this skill, without its body."},
        },
    }

    def __init__(self, config: SkillsConfig, coordinator: Any = None) -> None:
        self.config = config
        self.coordinator = coordinator
        self.sources = skill_sources(config, coordinator)
        self.catalog: SkillCatalog = discover(self.sources)

    @property
    def skills(self) -> dict[str, Skill]:
        return self.catalog.skills

    @property
    def skills_dirs(self) -> list[Path]:
        return [source.directory for source in self.sources]

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        if input.get("list"):
            return self._list()
        if input.get("search"):
            return self._search(str(input["search"]))
        if input.get("info"):
            return self._info(str(input["info"]))
        name = input.get("skill_name")
        if not name:
            return ToolResult(success=False, error={
                "message": "Must provide skill_name, list=true, search='term', or info='name'"})
        return await self._load(str(name))

    def _list(self) -> ToolResult:
        if not self.skills:
            where = ", ".join(str(path) for path in self.skills_dirs)
            return ToolResult(success=True, output={"message": f"No skills found in {where}"})
        rows = [{"name": skill.name, "description": skill.description} for skill in self._sorted()]
        lines = ["Available Skills:", "", *(f"**{row['name']}**: {row['description']}" for row in rows)]
        return ToolResult(success=True, output={"message": "\n".join(lines), "skills": rows})

    def _search(self, term: str) -> ToolResult:
        needle = term.lower()
        rows = [{"name": skill.name, "description": skill.description} for skill in self._sorted()
                if needle in skill.name.lower() or needle in skill.description.lower()]
        if not rows:
            return ToolResult(success=True, output={"message": f"No skills matching '{term}'"})
        lines = [f"Skills matching '{term}':", "", *(f"**{row['name']}**: {row['description']}" for row in rows)]
        return ToolResult(success=True, output={"message": "\n".join(lines), "matches": rows})

    def _missing(self, name: str) -> ToolResult:
        available = ", ".join(sorted(self.skills)) or "none"
        return ToolResult(success=False, error={"message": f"Skill '{name}' not found. Available: {available}"})

    def _info(self, name: str) -> ToolResult:
        skill = self.skills.get(name)
        if skill is None:
            return self._missing(name)
        info: dict[str, Any] = {"name": skill.name, "description": skill.description, "version": skill.version,
                                "license": skill.license, "path": str(skill.path)}
        if skill.compatibility:
            info["compatibility"] = skill.compatibility
        if skill.allowed_tools:
            info["allowed_tools"] = list(skill.allowed_tools)
        if skill.metadata:
            info["metadata"] = skill.metadata
        return ToolResult(success=True, output=info)

    async def _load(self, name: str) -> ToolResult:
        skill = self.skills.get(name)
        if skill is None:
            return self._missing(name)
        try:
            body = skill_body(skill)
        except (OSError, ValueError) as error:
            return ToolResult(success=False, error={"message": f"Failed to load content from {skill.path}: {error}"})
        if self.coordinator is not None:
            await self.coordinator.hooks.emit(SKILL_LOADED_EVENT, {
                "skill_name": name, "source": str(skill.source.directory), "content_length": len(body),
                "version": skill.version})
        return ToolResult(success=True, output={
            "content": f"# {name}\n\n{body}",
            "skill_name": name,
            "skill_directory": str(skill.directory),
            "loaded_from": str(skill.source.directory),
            "files": skill_files(skill),
        })

    def _sorted(self) -> list[Skill]:
        return [self.skills[name] for name in sorted(self.skills)]

    def summary(self) -> dict[str, Any]:
        """What the app's ``/skills`` shows: every skill with its origin, what was shadowed or skipped."""
        return {"skills": [skill.row() for skill in self._sorted()],
                "shadowed": [skill.row() for skill in self.catalog.shadowed],
                "problems": list(self.catalog.problems),
                "sources": [{"origin": source.origin, "directory": str(source.directory)} for source in self.sources]}


def visible_skills_text(skills: list[Skill], max_visible: int) -> str:
    """The system prompt's part: names and descriptions only."""
    shown = skills[:max_visible]
    lines = ["Skills are available through the load_skill tool. Each line is a skill's name and when to use it; "
             "load a skill (load_skill(skill_name=NAME)) before doing a task it describes, and follow it.", ""]
    lines += [f"- {skill.name}: {skill.description}" for skill in shown]
    if len(skills) > len(shown):
        lines += ["", f"({len(skills) - len(shown)} more: load_skill(list=true) lists all)"]
    return "\n".join(lines)


class SkillsVisibility:
    """Adds the list of skills to each model request (ephemeral: the transcript does not keep it)."""

    def __init__(self, tool: SkillsTool, config: VisibilityConfig) -> None:
        self.tool = tool
        self.config = config

    async def on_provider_request(self, event: str, data: dict[str, Any]) -> HookResult:
        skills = self.tool._sorted()
        if not self.config.enabled or not skills or self.config.max_skills_visible == 0:
            return HookResult(action="continue")
        return HookResult(action="inject_context", context_injection=visible_skills_text(
            skills, self.config.max_skills_visible), context_injection_role=self.config.inject_role,
            ephemeral=self.config.ephemeral, suppress_output=True)


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> None:
    settings = parse_module_config(SkillsConfig, config, MODULE_ID)
    tool = SkillsTool(settings, coordinator)
    await coordinator.mount("tools", tool, name=tool.name)
    coordinator.register_contributor(OBSERVABILITY_EVENTS, MODULE_ID,
                                     lambda: [SKILLS_DISCOVERED_EVENT, SKILL_LOADED_EVENT])
    coordinator.register_capability(SKILLS_CATALOG, tool.summary)
    roots = list(_capability(coordinator, FILESYSTEM_READ_ROOTS) or [])
    coordinator.register_capability(FILESYSTEM_READ_ROOTS,
                                    [*roots, *(str(skill.directory) for skill in tool._sorted())])
    visibility = SkillsVisibility(tool, settings.visibility)
    coordinator.hooks.register("provider:request", visibility.on_provider_request,
                               priority=settings.visibility.priority, name=f"{MODULE_ID}-visibility")
    await coordinator.hooks.emit(SKILLS_DISCOVERED_EVENT, {
        "skill_count": len(tool.skills), "skill_names": sorted(tool.skills),
        "sources": [str(path) for path in tool.skills_dirs]})
