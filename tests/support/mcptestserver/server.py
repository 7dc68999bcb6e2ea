"""The test server's tools, prompt and resource."""

from __future__ import annotations

import base64
import os

import anyio
from mcp.server.mcpserver import Context, Image, MCPServer
from pydantic import BaseModel

from . import README_TEXT

PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


class NameForm(BaseModel):
    name: str


def build_server() -> MCPServer:
    server = MCPServer("amplifier-test-server", instructions="Test server for amplifier's tool-mcp.")
    started, cancelled = anyio.Event(), anyio.Event()

    @server.tool(description="Echo the text back.")
    def echo(text: str) -> str:
        return f"echo: {text}"

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> dict[str, int]:
        return {"sum": a + b}

    @server.tool(description="Return a 1x1 PNG image.")
    def picture() -> Image:
        return Image(data=PNG_1X1, format="png")

    @server.tool(description="Return `count` PNG images of about `size` bytes each.")
    def pictures(count: int, size: int) -> list[Image]:
        return [Image(data=PNG_1X1 + bytes([number % 256]) * size, format="png") for number in range(count)]

    @server.tool(description="Always fails with the given message.")
    def fail(message: str = "it failed") -> str:
        raise ValueError(message)

    @server.tool(description="Return `size` characters.")
    def big(size: int) -> str:
        return "x" * size

    @server.tool(description="The value of an environment variable of the server process.")
    def env(name: str) -> str:
        return os.environ.get(name, "<unset>")

    @server.tool(description="Wait until the request is cancelled.")
    async def slow() -> str:
        started.set()
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            cancelled.set()
            raise
        return "unreachable"

    @server.tool(description="Wait (up to 20 s) until `slow` runs.")
    async def slow_started() -> str:
        with anyio.move_on_after(20):
            await started.wait()
        return "started" if started.is_set() else "not started"

    @server.tool(description="The server's process id.")
    def pid() -> int:
        return os.getpid()

    @server.tool(description="Whether `slow` was cancelled (waits up to 20 s for it).")
    async def was_cancelled() -> str:
        with anyio.move_on_after(20):
            await cancelled.wait()
        return "cancelled" if cancelled.is_set() else "not cancelled"

    @server.tool(description="End the server process at once.")
    def crash() -> str:
        os._exit(3)

    @server.tool(description="Add a tool called `name` (it echoes with its name) and tell the client.")
    async def grow(name: str, ctx: Context) -> str:
        def grown(text: str) -> str:
            return f"{name}: {text}"

        server.add_tool(grown, name=name, description=f"Added at runtime as {name}.")
        await ctx.request_context.session.send_tool_list_changed()
        return f"added {name}"

    @server.tool(description="Report progress `count` times, then answer.")
    async def steps(count: int, ctx: Context) -> str:
        for step in range(1, count + 1):
            await ctx.report_progress(step, count, f"step {step} of {count}")
        return f"{count} steps done"

    @server.tool(description="Ask the user for their name (elicitation).")
    async def ask_name(ctx: Context) -> str:
        answer = await ctx.elicit("What is your name?", NameForm)
        if answer.action == "accept":
            return f"hello {answer.data.name}"
        return f"no name ({answer.action})"

    @server.prompt(description="Ask for a review of a topic.")
    def review(topic: str) -> str:
        return f"Please review {topic} carefully."

    @server.resource("test://readme", name="readme", description="A text resource", mime_type="text/plain")
    def readme() -> str:
        return README_TEXT

    @server.resource("test://greeting/{name}", name="greeting", description="A greeting for someone",
                     mime_type="text/plain")
    def greeting(name: str) -> str:
        return f"Hello, {name}, from a resource template."

    return server
