"""A small MCP server written with the official ``mcp`` SDK, for tests: over stdio, Streamable HTTP or the older
HTTP+SSE, as a real separate process.

    python -m mcptestserver --transport stdio|http|sse      # http/sse print their URL as the first stdout line

Tools: ``echo(text)``, ``add(a, b)`` (structured), ``picture()`` (an image), ``pictures(count, size)``
(large images), ``fail(message)`` (a tool error),
``big(size)``, ``env(name)``, ``pid()``, ``crash()`` (exits the process), ``slow()`` (waits until cancelled),
``slow_started()`` and ``was_cancelled()`` (wait, bounded, for ``slow`` to run / be cancelled), ``grow(name)`` (adds
a tool and sends tools/list_changed: use a stdio server, the HTTP one is shared), ``steps(count)`` (progress
notifications), ``ask_name()`` (an elicitation).
Prompt ``review(topic)``. Resource ``test://readme``, template ``test://greeting/{name}``.
``--linger`` (stdio): keep running after stdin closes.

In tests use the fixtures of ``mcptestserver.fixtures``: ``mcp_http_server`` / ``mcp_sse_server`` (one server
process per test worker), and ``stdio_command()`` / ``stdio_server_env()`` for a stdio server spec. Servers start
warm (tests/support/warmstart: forked from a process that has imported the SDK), as do the reference servers a test
names with ``module_server()``.
"""

from __future__ import annotations

from warmstart import python_module_command

README_TEXT = "The test server's readme: hello from a resource."


def stdio_command() -> list[str]:
    """argv starting the server over stdio (started warm: tests/support/warmstart)."""
    return [*python_module_command("mcptestserver"), "--transport", "stdio"]


def module_server(module: str, *arguments: str) -> dict[str, object]:
    """An MCP server spec (`command`, `args`) for `python -m MODULE ARGUMENTS`, started warm."""
    command = python_module_command(module)
    return {"command": command[0], "args": [*command[1:], *arguments]}
