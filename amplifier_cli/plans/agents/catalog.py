"""Find every agent a session may delegate to: files in the project's `.amplifier/agents/` and `.claude/agents/`
(Claude Code's), the user config dir's `agents/`, and the profile's `agents:` mapping; then apply the profile's
selection. The project's two directories are read only when the project is trusted.

Precedence for a name defined in several places (first wins): project file (`.amplifier/agents/` before
`.claude/agents/`) > user file > profile entry,
the same order as profiles. The profile's `agents:` value also selects: absent, `all` or a mapping =
every agent found; `none` = no delegation; a list of names = only those.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...config.paths import AmplifierPaths
from ...config.trust import project_trusted
from ...config.yaml_document import YamlDocument, load_yaml_document
from ...errors import ConfigError, Problem
from .definitions import AgentDefinition, definition_from_document

AGENT_SUFFIXES = (".yaml", ".yml", ".md")
AGENTS_DIR_NAME = "agents"
CLAUDE_AGENTS_DIR = (".claude", "agents")


@dataclass
class AgentCatalog:
    agents: dict[str, AgentDefinition] = field(default_factory=dict)  # visible agents, by name
    problems: list[Problem] = field(default_factory=list)  # invalid files/entries (those agents are left out)
    shadowed: dict[str, list[str]] = field(default_factory=dict)  # name -> lower-precedence places ignored

    def capability_value(self) -> dict[str, dict[str, Any]]:
        """What the `agents.catalog` capability holds: name -> plain definition data (has `description`)."""
        return {name: definition.as_dict() for name, definition in sorted(self.agents.items())}

    def get(self, name: str) -> AgentDefinition:
        if name not in self.agents:
            raise ConfigError.single(f"agent '{name}' is not defined", fix=unknown_agent_fix(self.agents))
        return self.agents[name]


def unknown_agent_fix(agents: dict[str, Any]) -> str:
    names = ", ".join(sorted(agents))
    if names:
        return f"use one of: {names}"
    return ("define agents in .amplifier/agents/<name>.md (or .yaml), in the user config dir's agents/, "
            "or in a profile's agents:")


def agent_dirs(paths: AmplifierPaths) -> list[tuple[str, Path]]:
    """Where agent files live, highest precedence first."""
    dirs: list[tuple[str, Path]] = []
    if paths.project_dir is not None and project_trusted(paths):  # the project's own agents wait for trust
        dirs.append(("project", paths.project_dir / AGENTS_DIR_NAME))
        dirs.append(("project", paths.project_dir.parent.joinpath(*CLAUDE_AGENTS_DIR)))
    dirs.append(("user", paths.config_dir / AGENTS_DIR_NAME))
    return dirs


def _agent_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    files = [
        path
        for path in directory.iterdir()
        if path.suffix in AGENT_SUFFIXES and path.is_file() and path.stem.upper() != "README"
    ]
    return sorted(files, key=lambda p: (p.stem, AGENT_SUFFIXES.index(p.suffix)))


def _file_definitions(paths: AmplifierPaths, problems: list[Problem]) -> list[AgentDefinition]:
    found: list[AgentDefinition] = []
    for origin, directory in agent_dirs(paths):
        for path in _agent_files(directory):
            try:
                doc = load_yaml_document(path)
            except ConfigError as error:
                problems.extend(error.problems)
                continue
            definition, file_problems = definition_from_document(doc, fallback_name=path.stem, origin=origin)
            problems.extend(file_problems)
            if definition is not None:
                found.append(definition)
    return found


def _profile_definitions(
    plan_agents: dict[str, Any], profile_files: list[Path], problems: list[Problem]
) -> list[AgentDefinition]:
    """Entries of the profile's `agents:` mapping; lines come from the (leaf-most) file that declares them."""
    documents = [doc for doc in map(_read_quietly, profile_files) if doc is not None]
    found: list[AgentDefinition] = []
    for name in plan_agents:
        declaring = next((doc for doc in documents if name in _agents_mapping(doc)), None)
        # validate the merged value (a bundle may have filled it in from an agent file), with the file's lines
        fallback = profile_files[0] if profile_files else Path("<profile>")
        doc = YamlDocument(
            path=declaring.path if declaring is not None else fallback,
            data={"agents": {name: plan_agents[name]}},
            lines=declaring.lines if declaring is not None else {},
        )
        definition, entry_problems = definition_from_document(
            doc, fallback_name=str(name), origin="profile", key_path=("agents", str(name))
        )
        problems.extend(entry_problems)
        if definition is not None:
            definition.name = str(name)
            found.append(definition)
    return found


def _read_quietly(path: Path) -> YamlDocument | None:
    try:
        return load_yaml_document(path)
    except ConfigError:
        return None


def _agents_mapping(doc: YamlDocument) -> dict[str, Any]:
    agents = doc.data.get("agents") if isinstance(doc.data, dict) else None
    return agents if isinstance(agents, dict) else {}


def load_agent_catalog(
    paths: AmplifierPaths, plan_agents: Any = None, profile_files: list[Path] | None = None
) -> AgentCatalog:
    """Every valid agent visible to a session whose plan has `agents: plan_agents`. Invalid definitions are
    reported in `problems` and left out, so one broken file does not stop every session."""
    catalog = AgentCatalog()
    if plan_agents == "none":
        return catalog
    candidates = _file_definitions(paths, catalog.problems)
    if isinstance(plan_agents, dict):
        candidates += _profile_definitions(plan_agents, profile_files or [], catalog.problems)
    for definition in candidates:  # highest precedence first
        if definition.name in catalog.agents:
            catalog.shadowed.setdefault(definition.name, []).append(definition.path or definition.origin)
            continue
        catalog.agents[definition.name] = definition
    if isinstance(plan_agents, list):
        missing = [name for name in plan_agents if name not in catalog.agents]
        for name in missing:
            catalog.problems.append(
                Problem(
                    f"the profile's agents list names '{name}', which is not defined anywhere",
                    key_path="agents",
                    fix=unknown_agent_fix(catalog.agents),
                )
            )
        catalog.agents = {name: catalog.agents[name] for name in plan_agents if name in catalog.agents}
    return catalog


def select_agents(agents: dict[str, AgentDefinition], selection: Any) -> dict[str, AgentDefinition]:
    """Apply an agent's own `agents:` (what ITS sub-agents may be): None/'all' = the same set, 'none' = none."""
    if selection is None or selection == "all":
        return dict(agents)
    if selection == "none":
        return {}
    return {name: agents[name] for name in selection if name in agents}
