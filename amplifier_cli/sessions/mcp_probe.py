"""`amplifier mcp test NAME`: connect to one server the way a session would (tool-mcp mounted on a kernel
coordinator, found through its entry point), report its state and tools, and shut it down."""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from amplifier_support.capability_names import (
    APPROVAL_INTERACTIVE,
    MCP_OAUTH_STORE,
    MCP_STATUS,
    SESSION_DIR,
    SESSION_WORKING_DIR,
)

from ..config.mcp_servers import McpServerEntry
from ..config.paths import AmplifierPaths
from ..errors import ConfigError, RuntimeFailure

# The server fields tool-mcp knows; files may hold other agents' keys, which its strict config would refuse.
_SERVER_KEYS = ("type", "transport", "command", "args", "env", "cwd", "url", "headers", "startup_timeout", "timeout",
               "oauth")


class _ProbeSession:
    """The little of a session a coordinator asks for."""

    session_id = "mcp-test"
    parent_id = None
    config: dict[str, Any] = {}


@dataclass
class _CollectedMessages:
    messages: list[str] = field(default_factory=list)

    echo: bool = False  # a login's "open this URL" goes to the terminal at once

    def show_message(self, message: str, level: str = "info", source: str = "hook") -> None:
        self.messages.append(message)
        if self.echo and level == "info":
            import sys

            sys.stderr.write(message + "\n")
            sys.stderr.flush()


@dataclass
class ProbeResult:
    state: str
    transport: str
    tools: list[str]
    prompts: int
    error: str | None
    log_text: str
    auth: str | None = None


def _tool_mcp_mount() -> Any:
    from amplifier_core.loader import installed_entry_point

    entry = installed_entry_point("tool-mcp")
    if entry is not None:
        return entry.load()
    raise RuntimeFailure("the tool-mcp module is not installed (fix: reinstall amplifier)")


async def probe_server(paths: AmplifierPaths, entry: McpServerEntry, timeout: float, *,
                       login: bool = False) -> ProbeResult:
    """``login``: a person is here, so a server that wants OAuth opens the browser (`amplifier mcp login`)."""
    from amplifier_core import ModuleCoordinator

    from ..config.mcp_oauth_store import McpOAuthStore

    spec = {key: value for key, value in entry.spec.items() if key in _SERVER_KEYS}
    spec["startup_timeout"] = timeout
    coordinator = ModuleCoordinator(_ProbeSession(), display_system=_CollectedMessages(echo=login))
    with tempfile.TemporaryDirectory(prefix="amplifier-mcp-test-") as scratch:
        coordinator.register_capability(SESSION_DIR, scratch)
        coordinator.register_capability(SESSION_WORKING_DIR, str(paths.cwd))
        coordinator.register_capability(MCP_OAUTH_STORE, McpOAuthStore(paths))
        coordinator.register_capability(APPROVAL_INTERACTIVE, login)
        from amplifier_core.module_config import ModuleConfigError

        try:
            await _tool_mcp_mount()(coordinator, {"read_config_files": False, "servers": {entry.name: spec}})
            row = coordinator.get_capability(MCP_STATUS)()[0]
        except ModuleConfigError as error:
            raise ConfigError.single(str(error).replace("tool-mcp config: ", ""), file=entry.file,
                                     key_path=f"mcpServers.{entry.name}", fix="fix the server's definition") from None
        finally:
            await asyncio.shield(coordinator.cleanup())
        log = next(iter(Path(scratch).glob("mcp/*.log")), None)
        log_text = log.read_text(encoding="utf-8", errors="replace") if log else ""
    return ProbeResult(row["state"], row["transport"], row["tool_names"], row["prompts"], row["error"], log_text,
                       row.get("auth"))
