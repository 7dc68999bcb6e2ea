"""tool-mcp: the tools, resources and prompts of Model Context Protocol servers, through the official ``mcp``
SDK (stdio, Streamable HTTP, and the older HTTP+SSE).

The SDK is imported only when at least one server is configured. Servers start in parallel at mount; one
that fails is a warning line and the session goes on. See README.md for the files read and the config keys.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from pydantic import Field, model_validator

from amplifier_core.module_config import ModuleConfig, parse_module_config
from amplifier_support.capability_names import (
    APP_USER_CONFIG_DIR,
    APPROVAL_INTERACTIVE,
    MCP_CLIENT_SERVERS,
    MCP_ELICIT,
    MCP_GET_PROMPT,
    MCP_OAUTH_STORE,
    MCP_PROMPTS,
    MCP_READ_RESOURCE,
    MCP_RESOURCES,
    MCP_SERVERS,
    MCP_STATUS,
    SESSION_DIR,
    SESSION_PROJECT_DIR,
    SESSION_PROJECT_TRUSTED,
    SESSION_WORKING_DIR,
)

from .connection import ConnectionSettings
from .oauth import LoginSettings
from .server_set import ServerSet
from .server_specs import CONFIG_FILE_VARIABLE, merged_servers, server_files
from .tool_mounts import ServerTools

__amplifier_module_type__ = "tool"
__all__ = ["McpConfig", "ServerSet", "mount"]

logger = logging.getLogger(__name__)

MODULE_ID = "tool-mcp"
# Capabilities the app registers (all optional): where the user's mcp.json is, and the project root.
# Capabilities this module registers, for the app's /mcp, /status and prompt slash commands.
VERBOSE_VARIABLE = "AMPLIFIER_MCP_VERBOSE"  # upstream's switch for verbose_servers


class McpConfig(ModuleConfig):
    servers: dict[str, Any] = Field(default_factory=dict)
    read_config_files: bool = True
    config_dir: str | None = None
    project_dir: str | None = None
    startup_timeout: float = Field(default=30.0, gt=0)
    request_timeout: float | None = Field(default=600.0, gt=0)
    max_result_chars: int = Field(default=50_000, ge=1_000)
    guard_processes: bool = True
    read_upstream_files: bool = True
    """Also read upstream Amplifier's ``~/.amplifier/mcp.json`` and the file ``$AMPLIFIER_MCP_CONFIG`` names."""
    # Upstream tool-mcp's keys, so its bundles and behaviours mount unchanged:
    max_content_size: int | None = Field(default=None, ge=1_000)
    """Upstream's name for ``max_result_chars``."""
    verbose_servers: bool = False
    """Stdio servers' stderr goes to the terminal instead of a log file (also ``AMPLIFIER_MCP_VERBOSE=1``)."""
    server_log_dir: str | None = None
    """Where stdio servers' stderr logs go instead of ``<session dir>/mcp``."""
    visibility: dict[str, Any] | None = None
    """Upstream's server-list hook; accepted and not needed here (server tools are listed as tools)."""

    @model_validator(mode="after")
    def _upstream_result_limit(self) -> McpConfig:
        if self.max_content_size is None:
            return self
        if "max_result_chars" in self.model_fields_set and self.max_result_chars != self.max_content_size:
            raise ValueError("'max_content_size' (upstream's name) and 'max_result_chars' disagree; keep one")
        self.max_result_chars = self.max_content_size
        return self


def _capability(coordinator: Any, name: str) -> Any:
    getter = getattr(coordinator, "get_capability", None)
    return getter(name) if getter else None


def _warner(coordinator: Any) -> Any:
    """Warnings go to the app's display system (stderr in a run, the REPL's output), else to logging."""
    display = getattr(coordinator, "display_system", None)
    if display is None:
        return lambda message: logger.warning("%s", message)
    return lambda message: display.show_message(message, "warning", source=MODULE_ID)


def _informer(coordinator: Any) -> Any:
    display = getattr(coordinator, "display_system", None)
    if display is None:
        return lambda message: logger.warning("%s", message)
    return lambda message: display.show_message(message, "info", source=MODULE_ID)


def _form_asker(coordinator: Any) -> Any:
    """A server's elicitation form goes to the app's asker (capability ``mcp.elicit``, registered only where a
    person can answer); without one, the elicitation is declined."""

    async def ask(server: str, message: str, schema: dict[str, Any]) -> dict[str, Any] | None:
        asker = _capability(coordinator, MCP_ELICIT)
        return await asker(server, message, schema) if callable(asker) else None

    return ask


def _path(value: Any) -> Path | None:
    return Path(value).expanduser() if value else None


def _home() -> Path | None:
    try:
        return Path.home()
    except RuntimeError:  # no HOME and no password entry: there is no upstream user file to read
        return None


def _log_dir(settings: McpConfig, session_dir: Any) -> Path | None:
    if settings.server_log_dir:
        return _path(settings.server_log_dir)
    return Path(session_dir) / "mcp" if session_dir else None


def _verbose(settings: McpConfig) -> bool:
    return settings.verbose_servers or os.environ.get(VERBOSE_VARIABLE, "").strip().lower() in ("1", "true", "yes")


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> None:
    settings = parse_module_config(McpConfig, config, MODULE_ID)
    working_dir = _path(_capability(coordinator, SESSION_WORKING_DIR))
    files: list[Path] = []
    if settings.read_config_files:
        config_dir = _path(settings.config_dir or _capability(coordinator, APP_USER_CONFIG_DIR))
        project_root = _path(settings.project_dir)  # named in the profile: its author's choice
        if project_root is None and _capability(coordinator, SESSION_PROJECT_TRUSTED) is True:
            # A project's servers start processes: only where the app says the user trusts the project.
            project_root = _path(_capability(coordinator, SESSION_PROJECT_DIR)) or working_dir
        upstream = settings.read_upstream_files
        files = server_files(config_dir, project_root, home=_home() if upstream else None,
                             config_file=os.environ.get(CONFIG_FILE_VARIABLE) if upstream else None)
    client_servers = _capability(coordinator, MCP_CLIENT_SERVERS)  # the editor's own, under `amplifier acp`
    servers = {**settings.servers, **(client_servers if isinstance(client_servers, dict) else {})}
    definitions = merged_servers(files, servers, warn=_warner(coordinator))
    server_set = ServerSet(definitions, ConnectionSettings(
        startup_timeout=settings.startup_timeout,
        request_timeout=settings.request_timeout,
        log_dir=_log_dir(settings, _capability(coordinator, SESSION_DIR)),
        working_dir=working_dir,
        guard_processes=settings.guard_processes,
        warn=_warner(coordinator),
        verbose=_verbose(settings),
        oauth_store=_capability(coordinator, MCP_OAUTH_STORE),
        # a login opens the browser only where a person answers; a headless run fails the server with a hint
        login=LoginSettings(interactive=_capability(coordinator, APPROVAL_INTERACTIVE) is True,
                            show=_informer(coordinator)),
        elicit=_form_asker(coordinator),
    ))
    coordinator.register_capability(MCP_STATUS, server_set.status)
    coordinator.register_capability(MCP_PROMPTS, server_set.prompts)
    coordinator.register_capability(MCP_GET_PROMPT, server_set.get_prompt)
    coordinator.register_capability(MCP_RESOURCES, server_set.resources)
    coordinator.register_capability(MCP_READ_RESOURCE, server_set.read_resource)
    coordinator.register_capability(MCP_SERVERS, server_set)
    if not definitions:
        return None
    coordinator.register_cleanup(server_set.close_all)  # before starting: a Ctrl-C during startup cleans up too
    await server_set.start_all()
    tools = ServerTools(coordinator, server_set, settings.max_result_chars)
    await tools.sync()
    tools.watch()  # tools/list_changed: the new list is mounted before the next model request
    return None
