"""Sub-agents: agent definitions (files and profile entries), the catalog a session sees, the plan a child
session runs with, and the `session.spawn` / `session.resume` capabilities."""

from __future__ import annotations

from .catalog import AgentCatalog, agent_dirs, load_agent_catalog
from .definitions import AgentDefinition
from .spawner import DEFAULT_MAX_DEPTH, SubAgentError, SubAgentSpawner

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "AgentCatalog",
    "AgentDefinition",
    "SubAgentError",
    "SubAgentSpawner",
    "agent_dirs",
    "load_agent_catalog",
]
