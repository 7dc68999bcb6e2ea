"""What `amplifier agents list|show` report: the agents a session of a profile would see, and where they are
searched for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...config.paths import AmplifierPaths
from ...errors import ConfigError
from .catalog import AgentCatalog, agent_dirs, load_agent_catalog, unknown_agent_fix


def catalog_for(profile: str | None = None, paths: AmplifierPaths | None = None) -> tuple[AgentCatalog, str]:
    """The agents a session of `profile` (default: the active one) would see, and that profile's name."""
    from ...config.settings import load_settings
    from ..plan import build_plan

    paths = paths or AmplifierPaths.discover()
    built = build_plan(load_settings(paths), profile, paths=paths)
    files = [location.path for location in built.profile.chain]
    return load_agent_catalog(paths, built.plan.get("agents"), files), built.profile_name


def agent_listing(catalog: AgentCatalog) -> list[dict[str, Any]]:
    return [
        {
            "name": name,
            "origin": definition.origin,
            "path": definition.path,
            "description": definition.description,
            "shadows": catalog.shadowed.get(name, []),
        }
        for name, definition in sorted(catalog.agents.items())
    ]


def agent_detail(catalog: AgentCatalog, name: str) -> dict[str, Any]:
    """Everything about agent `name`; an invalid definition of that name raises its problems (exit 2)."""
    if name not in catalog.agents:
        mine = [problem for problem in catalog.problems
                if (problem.file is not None and Path(problem.file).stem == name)
                or (problem.key_path or "").startswith(f"agents.{name}")]
        if mine:
            raise ConfigError(f"agent '{name}' is defined but invalid", mine)
        raise ConfigError.single(f"agent '{name}' is not defined", fix=unknown_agent_fix(catalog.agents))
    return {**catalog.agents[name].as_dict(), "shadows": catalog.shadowed.get(name, [])}


def searched_dirs(paths: AmplifierPaths | None = None) -> list[str]:
    paths = paths or AmplifierPaths.discover()
    return [f"{origin}: {directory}" for origin, directory in agent_dirs(paths)]
