"""tool-mcp: the tools, resources and prompts of Model Context Protocol servers, through the official ``mcp``
SDK (stdio, Streamable HTTP, and the older HTTP+SSE).

The SDK is imported only when at least one server is configured. Servers start in parallel at mount; one
that fails is a warning line and the session goes on. See README.md for the files read and the config keys.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pydantic import Field

from amplifier_core.module_config import ModuleConfig, parse_module_config

from .connection import ConnectionSettings
from .server_set import ServerSet
from .server_specs import merged_servers, server_files
from .tools import McpTool, ReadResourceTool

__amplifier_module_type__ = "tool"
__all__ = ["McpConfig", "ServerSet", "mount"]

logger = logging.getLogger(__name__)

MODULE_ID = "tool-mcp"
# Capabilities the app registers (all optional): where the user's mcp.json is, and the project root.
CONFIG_DIR_CAPABILITY = "app.user_config_dir"
PROJECT_ROOT_CAPABILITY = "session.project_dir"
# Capabilities this module registers, for the app's /mcp, /status and prompt slash commands.
STATUS_CAPABILITY = "mcp.status"
PROMPTS_CAPABILITY = "mcp.prompts"
GET_PROMPT_CAPABILITY = "mcp.get_prompt"
SERVERS_CAPABILITY = "mcp.servers"  # the ServerSet itself, for tests and tools that need more


class McpConfig(ModuleConfig):
    servers: dict[str, Any] = Field(default_factory=dict)
    read_config_files: bool = True
    config_dir: str | None = None
    project_dir: str | None = None
    startup_timeout: float = Field(default=30.0, gt=0)
    request_timeout: float | None = Field(default=600.0, gt=0)
    max_result_chars: int = Field(default=50_000, ge=1_000)
    guard_processes: bool = True


def _capability(coordinator: Any, name: str) -> Any:
    getter = getattr(coordinator, "get_capability", None)
    return getter(name) if getter else None


def _warner(coordinator: Any) -> Any:
    """Warnings go to the app's display system (stderr in a run, the REPL's output), else to logging."""
    display = getattr(coordinator, "display_system", None)
    if display is None:
        return lambda message: logger.warning("%s", message)
    return lambda message: display.show_message(message, "warning", source=MODULE_ID)


def _path(value: Any) -> Path | None:
    return Path(value).expanduser() if value else None


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> None:
    settings = parse_module_config(McpConfig, config, MODULE_ID)
    working_dir = _path(_capability(coordinator, "session.working_dir"))
    files: list[Path] = []
    if settings.read_config_files:
        config_dir = _path(settings.config_dir or _capability(coordinator, CONFIG_DIR_CAPABILITY))
        project_root = _path(settings.project_dir or _capability(coordinator, PROJECT_ROOT_CAPABILITY)) or working_dir
        files = server_files(config_dir, project_root)
    definitions = merged_servers(files, settings.servers)
    server_set = ServerSet(definitions, ConnectionSettings(
        startup_timeout=settings.startup_timeout,
        request_timeout=settings.request_timeout,
        log_dir=(Path(session_dir) / "mcp") if (session_dir := _capability(coordinator, "session.dir")) else None,
        working_dir=working_dir,
        guard_processes=settings.guard_processes,
        warn=_warner(coordinator),
    ))
    coordinator.register_capability(STATUS_CAPABILITY, server_set.status)
    coordinator.register_capability(PROMPTS_CAPABILITY, server_set.prompts)
    coordinator.register_capability(GET_PROMPT_CAPABILITY, server_set.get_prompt)
    coordinator.register_capability(SERVERS_CAPABILITY, server_set)
    if not definitions:
        return None
    coordinator.register_cleanup(server_set.close_all)  # before starting: a Ctrl-C during startup cleans up too
    await server_set.start_all()
    mounted: set[str] = set()
    for connection in server_set.connections.values():
        for tool in connection.tools:
            kernel_tool = McpTool(connection, tool, settings.max_result_chars)
            if kernel_tool.name in mounted:
                server_set.settings.warn(f"MCP server '{connection.name}' tool '{tool.name}' is skipped: "
                                         f"its name {kernel_tool.name} is taken")
                continue
            mounted.add(kernel_tool.name)
            await coordinator.mount("tools", kernel_tool, name=kernel_tool.name)
    if any(c.has_resources for c in server_set.connections.values()):
        reader = ReadResourceTool(server_set, settings.max_result_chars)
        await coordinator.mount("tools", reader, name=reader.name)
    return None
