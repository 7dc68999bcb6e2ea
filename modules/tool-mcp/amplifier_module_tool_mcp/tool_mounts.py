"""The servers' tools as kernel tools on the coordinator, kept in step with the servers: at mount, and again
when a server says its tool list changed (``notifications/tools/list_changed``), which is read before the next
model request (a ``provider:request`` hook), so the model sees the new list in that request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from amplifier_core import HookResult
from amplifier_core.events import PROVIDER_REQUEST
from amplifier_support.capability_names import UI_WORKING_INDICATOR

from .server_set import ServerSet
from .tools import McpTool, ReadResourceTool


def progress_reporter(coordinator: Any) -> Callable[[str, str], None]:
    """Shows a tool's progress on the app's working indicator (capability ``ui.working_indicator``), when it
    has one that takes progress; looked up per call, as the indicator may come and go."""

    def report(tool_name: str, text: str) -> None:
        getter = getattr(coordinator, "get_capability", None)
        indicator = getter(UI_WORKING_INDICATOR) if getter else None
        show = getattr(indicator, "tool_progress", None)
        if callable(show):
            show(tool_name, text)

    return report


class ServerTools:
    def __init__(self, coordinator: Any, servers: ServerSet, max_result_chars: int) -> None:
        self.coordinator = coordinator
        self.servers = servers
        self.max_result_chars = max_result_chars
        self.mounted: dict[str, McpTool] = {}
        self._report = progress_reporter(coordinator)

    async def sync(self) -> None:
        """Mount every connected server's tools that are not mounted, unmount the ones gone; a name taken by
        another tool is skipped with a warning."""
        wanted: dict[str, McpTool] = {}
        for connection in self.servers.connections.values():
            for tool in connection.tools:
                kernel_tool = McpTool(connection, tool, self.max_result_chars, self._report)
                taken = kernel_tool.name in wanted or (
                    kernel_tool.name not in self.mounted and kernel_tool.name in (self.coordinator.get("tools") or {}))
                if taken:
                    self.servers.settings.warn(f"MCP server '{connection.name}' tool '{tool.name}' is skipped: "
                                               f"its name {kernel_tool.name} is taken")
                    continue
                wanted[kernel_tool.name] = kernel_tool
        for name in [name for name in self.mounted if name not in wanted]:
            await self.coordinator.unmount("tools", name)
        for name, kernel_tool in wanted.items():  # mounted again: a changed description or schema is taken too
            await self.coordinator.mount("tools", kernel_tool, name=name)
        self.mounted = wanted
        has_reader = ReadResourceTool.name in (self.coordinator.get("tools") or {})
        if not has_reader and any(c.has_resources for c in self.servers.connections.values()):
            reader = ReadResourceTool(self.servers, self.max_result_chars)
            await self.coordinator.mount("tools", reader, name=reader.name)

    async def before_request(self, event: str, data: dict[str, Any]) -> HookResult:
        """``provider:request``: re-read the lists servers said changed, and re-mount the tools if they did."""
        if await self.servers.refresh_changed():
            await self.sync()
        return HookResult(action="continue")

    def watch(self) -> None:
        self.coordinator.hooks.register(PROVIDER_REQUEST, self.before_request, priority=-100, name="tool-mcp")
