"""Kernel tools over MCP: one ``mcp__<server>__<tool>`` per server tool, and ``mcp_read_resource``."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from amplifier_core import ToolResult

from .connection import ServerUnavailable, all_pages
from .results import call_result_to_tool_result, cut, resource_contents_text

if TYPE_CHECKING:
    from .connection import ServerConnection
    from .server_set import ServerSet

TOOL_PREFIX = "mcp__"
READ_RESOURCE_TOOL = "mcp_read_resource"
MAX_TOOL_NAME = 64  # the strictest provider limit (OpenAI)
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")


def kernel_tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>`` made safe for every provider: other characters become ``_``; a name too long
    keeps its start and gets a short hash so two long names stay distinct."""
    name = f"{TOOL_PREFIX}{server}__{_NOT_ALLOWED.sub('_', tool)}"
    if len(name) <= MAX_TOOL_NAME:
        return name
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME - 9]}_{digest}"


def _error(message: str) -> ToolResult:
    return ToolResult(success=False, error={"message": message})


class McpTool:
    """A server tool as a kernel tool; the input schema is the server's own JSON Schema."""

    def __init__(self, connection: ServerConnection, tool: Any, max_result_chars: int,
                 report_progress: Callable[[str, str], None] | None = None) -> None:
        self._connection = connection
        self._report_progress = report_progress
        self._tool_name = tool.name
        self.name = kernel_tool_name(connection.name, tool.name)
        title = getattr(tool, "title", None)
        description = (tool.description or title or tool.name).strip()
        self.description = f"{description}\n\n(MCP server '{connection.name}', tool '{tool.name}')"
        schema = dict(tool.input_schema or {})
        schema.setdefault("type", "object")
        schema.setdefault("properties", {})
        self.input_schema: dict[str, Any] = schema
        self._max_result_chars = max_result_chars

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        from mcp import MCPError

        try:
            result = await self._connection.request("call_tool", self._tool_name, dict(input or {}),
                                                    progress_callback=self._progress)
        except ServerUnavailable as error:
            return _error(str(error))
        except MCPError as error:  # an error answer (unknown tool, bad arguments, timeout)
            return _error(f"MCP server '{self._connection.name}' answered {self._tool_name} with an error: "
                          f"{error.message}")
        return call_result_to_tool_result(result, self._max_result_chars)


    async def _progress(self, progress: float, total: float | None, message: str | None) -> None:
        """The server's progress notifications, shown on the app's working indicator."""
        if self._report_progress is None:
            return
        text = message or (f"{progress:g}/{total:g}" if total else f"{progress:g}")
        self._report_progress(self.name, text)


class ReadResourceTool:
    """Lists and reads the resources MCP servers offer."""

    name = READ_RESOURCE_TOOL
    description = (
        "List or read resources offered by the connected MCP servers. Without `uri`, lists resources and "
        "resource templates (of `server`, or of every server). With `uri`, reads that resource (give `server` when "
        "several servers are connected); for a template, fill in its {placeholders} to make the uri."
    )
    input_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "server": {"type": "string", "description": "MCP server name"},
            "uri": {"type": "string", "description": "resource URI to read; omit to list resources"},
        },
    }

    def __init__(self, servers: ServerSet, max_result_chars: int) -> None:
        self._servers = servers
        self._max_result_chars = max_result_chars

    def _candidates(self, server: str | None) -> list[ServerConnection] | str:
        with_resources = [c for c in self._servers.connections.values() if c.has_resources]
        if server is None:
            return with_resources
        connection = self._servers.connections.get(server)
        if connection is None:
            known = ", ".join(sorted(self._servers.connections)) or "none"
            return f"no MCP server named '{server}' (servers: {known})"
        if not connection.has_resources:
            return f"MCP server '{server}' offers no resources"
        return [connection]

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        from mcp import MCPError

        server = (input or {}).get("server") or None
        uri = (input or {}).get("uri") or None
        candidates = self._candidates(server)
        if isinstance(candidates, str):
            return _error(candidates)
        if not candidates:
            return _error("no connected MCP server offers resources")
        try:
            if uri is None:
                return await self._list(candidates)
            if len(candidates) > 1:
                names = ", ".join(c.name for c in candidates)
                return _error(f"several MCP servers offer resources ({names}): say which one with `server`")
            result = await candidates[0].request("read_resource", uri)
        except ServerUnavailable as error:
            return _error(str(error))
        except MCPError as error:
            return _error(f"reading {uri}: {error.message}")
        text = "\n\n".join(resource_contents_text(contents) for contents in result.contents)
        return ToolResult(success=True, output=cut(text, self._max_result_chars))

    async def _list(self, candidates: list[ServerConnection]) -> ToolResult:
        """Resources, then templates (``uri_template`` with ``{placeholders}``: read one by filling them in)."""
        from mcp import MCPError

        listing: list[dict[str, Any]] = []
        for connection in candidates:
            for resource in await all_pages(partial(connection.request, "list_resources"), "resources"):
                entry = {"server": connection.name, "uri": str(resource.uri), "name": resource.name}
                if resource.description:
                    entry["description"] = resource.description
                if resource.mime_type:
                    entry["mime_type"] = resource.mime_type
                listing.append(entry)
            with contextlib.suppress(MCPError):  # a server without templates may answer the listing with an error
                templates = await all_pages(partial(connection.request, "list_resource_templates"),
                                            "resource_templates")
                for template in templates:
                    entry = {"server": connection.name, "uri_template": template.uri_template, "name": template.name}
                    if template.description:
                        entry["description"] = template.description
                    listing.append(entry)
        text = json.dumps(listing, ensure_ascii=False, indent=1) if listing else "no resources"
        return ToolResult(success=True, output=cut(text, self._max_result_chars))
