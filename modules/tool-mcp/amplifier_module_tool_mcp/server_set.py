"""All configured servers of a session: started in parallel, each with its own timeout; a failure is one
warning line and the others go on. Also what the app shows and uses (state, tool counts, prompts)."""

from __future__ import annotations

import asyncio
from typing import Any

from .connection import ConnectionSettings, ServerConnection, ServerUnavailable
from .server_specs import ServerDefinition


class ServerSet:
    def __init__(self, definitions: dict[str, ServerDefinition], settings: ConnectionSettings) -> None:
        self.settings = settings
        self.connections = {name: ServerConnection(d, settings) for name, d in definitions.items()}

    async def start_all(self) -> None:
        connections = list(self.connections.values())
        results = await asyncio.gather(*(c.connect() for c in connections), return_exceptions=True)
        for connection, outcome in zip(connections, results, strict=True):
            if isinstance(outcome, BaseException) and not isinstance(outcome, Exception):
                raise outcome  # a cancellation (Ctrl-C during startup) is not a server failure
            if outcome is not True:
                reason = connection.error or str(outcome)
                log = connection.log_path
                where = f"; its stderr is in {log}" if log and log.is_file() and log.stat().st_size else ""
                self.settings.warn(f"MCP server '{connection.name}' failed to start: {reason}{where}")

    async def refresh_changed(self) -> bool:
        """Re-read the lists servers said changed (``notifications/*/list_changed``); True when any did."""
        pending = [c for c in self.connections.values() if c.changed]
        if not pending:
            return False
        results = await asyncio.gather(*(c.refresh_changed() for c in pending))
        return any(results)

    async def close_all(self) -> None:
        await asyncio.gather(*(c.close() for c in self.connections.values()), return_exceptions=True)

    # -- what the app shows ------------------------------------------------------------------------------
    def status(self) -> list[dict[str, Any]]:
        """One row per server: name, state, transport, tool/prompt counts, error, origin, log file."""
        return [
            {
                "name": c.name,
                "state": c.state,
                "transport": c.transport_used or c.definition.spec.transport,
                "tools": len(c.tools) if c.state in ("connected", "crashed") else 0,
                "prompts": len(c.prompts) if c.state in ("connected", "crashed") else 0,
                "resources": c.has_resources,
                "error": c.error,
                "auth": c.auth_state(),
                "origin": c.definition.origin,
                "log": str(c.log_path) if c.log_path else None,
                "tool_names": [t.name for t in c.tools],
            }
            for c in self.connections.values()
        ]

    def prompts(self) -> list[dict[str, Any]]:
        """Prompts of connected servers, for slash commands ``/mcp__<server>__<prompt>``."""
        found = []
        for connection in self.connections.values():
            if connection.state != "connected":
                continue
            for prompt in connection.prompts:
                found.append({
                    "server": connection.name,
                    "name": prompt.name,
                    "command": f"mcp__{connection.name}__{prompt.name}",
                    "description": prompt.description or "",
                    "arguments": [
                        {"name": a.name, "required": bool(a.required), "description": a.description or ""}
                        for a in prompt.arguments or []
                    ],
                })
        return found

    def resources(self) -> list[dict[str, Any]]:
        """Resources and resource templates of connected servers, as listed when they connected: for
        ``@server:uri`` mentions. A template's ``uri`` holds its ``{placeholders}``."""
        found: list[dict[str, Any]] = []
        for connection in self.connections.values():
            if connection.state != "connected":
                continue
            for resource in connection.resources:
                found.append({"server": connection.name, "uri": str(resource.uri), "name": resource.name,
                              "description": resource.description or "", "mime_type": resource.mime_type,
                              "template": False})
            for template in connection.resource_templates:
                found.append({"server": connection.name, "uri": template.uri_template, "name": template.name,
                              "description": template.description or "", "mime_type": template.mime_type,
                              "template": True})
        return found

    async def read_resource(self, server: str, uri: str) -> dict[str, Any]:
        """One resource as ``{"text": str, "images": [ImageBlock dicts]}``: text contents as they are, images a
        model can take as image blocks, other binary contents as a one-line note."""
        from .results import resource_contents_parts

        connection = self.connections.get(server)
        if connection is None:
            raise ServerUnavailable(f"no MCP server named '{server}'")
        result = await connection.request("read_resource", uri)
        texts: list[str] = []
        images: list[dict[str, Any]] = []
        for contents in result.contents:
            text, image = resource_contents_parts(contents)
            texts.append(text)
            if image is not None:
                images.append(image)
        return {"text": "\n\n".join(texts), "images": images}

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str] | None = None) -> str:
        """The prompt's messages as one text, ready to send as the user's message."""
        from .results import content_text

        connection = self.connections.get(server)
        if connection is None:
            raise ServerUnavailable(f"no MCP server named '{server}'")
        result = await connection.request("get_prompt", name, arguments or {})
        return "\n\n".join(content_text(message.content) for message in result.messages)
