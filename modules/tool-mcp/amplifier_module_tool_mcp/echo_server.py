"""``python -m amplifier_module_tool_mcp.echo_server``: the smallest useful MCP server (stdio, one ``echo`` tool).
It lets ``amplifier module validate`` and a user check tool-mcp end to end without installing any server. It
imports only the standard library, so ``python -I -S <this file>`` starts it in milliseconds (``-m`` first
imports this package, and with it the kernel and pydantic).

It speaks the wire protocol itself (one JSON-RPC message a line on stdin and stdout) instead of using the SDK:
importing the SDK's server costs about 2 s of CPU, paid at every start, and validation starts one for each
behavioural test. The client side stays the SDK's, so what tool-mcp checks is still a real MCP exchange."""

from __future__ import annotations

import json
import sys
from typing import Any

_TOOL = {
    "name": "echo",
    "description": "Return the text unchanged.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
}
_FALLBACK_VERSION = "2025-06-18"


class _Unknown(Exception):
    """A method this server does not offer (JSON-RPC -32601)."""


def _call(params: dict[str, Any]) -> dict[str, Any]:
    text = (params.get("arguments") or {}).get("text")
    if params.get("name") != "echo" or not isinstance(text, str):
        message = "echo takes one string argument, 'text'" if params.get("name") == "echo" else "unknown tool"
        return {"content": [{"type": "text", "text": message}], "isError": True}
    return {"content": [{"type": "text", "text": text}], "isError": False}


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """The result of one request (the client's protocol version is accepted as offered)."""
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion") or _FALLBACK_VERSION,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "amplifier-echo", "version": "1.0"},
            "instructions": "Echoes text back; for checking an MCP client.",
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [_TOOL]}
    if method == "tools/call":
        return _call(params)
    raise _Unknown(method)


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            continue  # notifications and responses need no answer
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        try:
            reply["result"] = answer(message["method"], message.get("params") or {})
        except _Unknown as unknown:
            reply["error"] = {"code": -32601, "message": f"method not found: {unknown}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
