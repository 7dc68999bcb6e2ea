"""``python -m amplifier_module_tool_mcp.echo_server``: the smallest useful MCP server (stdio, one ``echo`` tool),
written with the SDK tool-mcp already depends on. It lets ``amplifier module validate`` and a user check
tool-mcp end to end without installing any server."""

from __future__ import annotations


def main() -> None:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("amplifier-echo", instructions="Echoes text back; for checking an MCP client.")

    @server.tool(description="Return the text unchanged.")
    def echo(text: str) -> str:
        return text

    server.run("stdio")


if __name__ == "__main__":
    main()
