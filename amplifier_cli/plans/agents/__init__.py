"""Sub-agent definitions: agent files and profile entries, the catalog a session sees, and the plan a child
session runs with. Spawning them is `amplifier_cli.sessions.spawner`."""

from __future__ import annotations

from .catalog import AgentCatalog, agent_dirs, load_agent_catalog
from .definitions import AgentDefinition

__all__ = [
    "AgentCatalog",
    "AgentDefinition",
    "agent_dirs",
    "load_agent_catalog",
]
