"""tool-mcp against the SDK-written test server as a real process: Streamable HTTP, HTTP+SSE (explicit and
as the fallback of a bare url) and stdio. Results, resources, prompts, cancellation, failures, crashes."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from mcptestserver import README_TEXT, stdio_command
from mcptestserver.fixtures import stdio_server_env

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def http(mcp_http_server: str, mount_mcp, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[object]:
    coordinator = await mount_mcp({"servers": {"test": {"type": "http", "url": mcp_http_server}},
                                   "max_result_chars": 1000}, tmp_path_factory.mktemp("http"))
    yield coordinator
    await coordinator.cleanup()


async def test_http_tools_results_are_text_structured_image_and_error(http, mcp_status) -> None:
    tools = http.get("tools")
    assert mcp_status(http)["test"]["transport"] == "http"
    assert (await tools["mcp__test__echo"].execute({"text": "hi"})).output == "echo: hi"
    added = await tools["mcp__test__add"].execute({"a": 2, "b": 40})
    assert added.success and '"sum": 42' in added.output
    picture = await tools["mcp__test__picture"].execute({})
    assert picture.output == "[image: image/png, 70 bytes, attached]"
    assert [block.type for block in picture.content] == ["text", "image"]  # the image itself reaches the model
    assert picture.content[1].source["media_type"] == "image/png"
    failed = await tools["mcp__test__fail"].execute({"message": "nope"})
    assert not failed.success
    assert "Error executing tool fail" in failed.get_serialized_output()
    assert tools["mcp__test__add"].input_schema["required"] == ["a", "b"]


async def test_large_results_are_cut_with_a_note(http) -> None:
    result = await http.get("tools")["mcp__test__big"].execute({"size": 5000})
    assert result.output.startswith("x" * 1000 + "\n\n[result cut: 4000 of 5000 characters left out]")


async def test_resources_are_listed_and_read(http) -> None:
    reader = http.get("tools")["mcp_read_resource"]
    listing = await reader.execute({})
    assert '"uri": "test://readme"' in listing.output
    assert (await reader.execute({"server": "test", "uri": "test://readme"})).output == README_TEXT
    unknown = await reader.execute({"server": "nope"})
    assert not unknown.success and "no MCP server named 'nope' (servers: test)" in unknown.output


async def test_resources_and_templates_are_offered_and_a_filled_in_template_is_read(http) -> None:
    offered = {(row["uri"], row["template"]) for row in http.get_capability("mcp.resources")()}
    assert offered == {("test://readme", False), ("test://greeting/{name}", True)}
    read = http.get_capability("mcp.read_resource")
    assert await read("test", "test://readme") == {"text": README_TEXT, "images": []}
    assert (await read("test", "test://greeting/ada"))["text"] == "Hello, ada, from a resource template."
    listing = (await http.get("tools")["mcp_read_resource"].execute({"server": "test"})).output
    assert '"uri_template": "test://greeting/{name}"' in listing


async def test_prompts_are_offered_as_slash_commands_with_arguments(http) -> None:
    prompts = http.get_capability("mcp.prompts")()
    assert prompts == [{"server": "test", "name": "review", "command": "mcp__test__review",
                        "description": "Ask for a review of a topic.",
                        "arguments": [{"name": "topic", "required": True, "description": ""}]}]
    text = await http.get_capability("mcp.get_prompt")("test", "review", {"topic": "the parser"})
    assert text == "Please review the parser carefully."


async def test_cancelling_a_call_cancels_the_request_on_the_server(http) -> None:
    tools = http.get("tools")
    call = asyncio.create_task(tools["mcp__test__slow"].execute({}))
    assert (await tools["mcp__test__slow_started"].execute({})).output == "started"
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert (await tools["mcp__test__was_cancelled"].execute({})).output == "cancelled"
    assert (await tools["mcp__test__echo"].execute({"text": "still here"})).output == "echo: still here"


async def test_sse_transport_explicitly_and_as_the_fallback_of_a_bare_url(mcp_sse_server: str, mount_mcp,
                                                                         mcp_status, tmp_path: Path) -> None:
    coordinator = await mount_mcp({"servers": {"old": {"type": "sse", "url": mcp_sse_server},
                                               "guess": {"url": mcp_sse_server}}}, tmp_path)
    try:
        rows = mcp_status(coordinator)
        assert (rows["old"]["state"], rows["old"]["transport"]) == ("connected", "sse")
        assert (rows["guess"]["state"], rows["guess"]["transport"]) == ("connected", "sse")
        result = await coordinator.get("tools")["mcp__guess__echo"].execute({"text": "over sse"})
        assert result.output == "echo: over sse"
    finally:
        await coordinator.cleanup()


async def test_failing_servers_are_one_warning_each_and_the_others_are_mounted(
        mcp_http_server: str, mount_mcp, mcp_status, tmp_path: Path) -> None:
    coordinator = await mount_mcp({"servers": {
        "good": {"url": mcp_http_server, "type": "http"},
        "missing": {"command": "no-such-mcp-server-binary"},
        "dies": {"command": sys.executable, "args": ["-c", "import sys; sys.stderr.write('boom on stderr\\n')"]},
        "mute": {"command": sys.executable, "args": ["-c", "import sys; sys.stdin.read()"], "startup_timeout": 1},
        "unset": {"url": "http://127.0.0.1:9/${MCP_TEST_NOT_SET}"},
    }}, tmp_path)
    try:
        shown = coordinator.display_system.messages
        assert {(m["level"], m["source"]) for m in shown} == {("warning", "tool-mcp")}
        warnings = [m["message"] for m in shown]
        assert len(warnings) == 4, warnings
        by_server = {w.split("'")[1]: w for w in warnings}
        assert by_server["missing"] == ("MCP server 'missing' failed to start: "
                                        "command not found: no-such-mcp-server-binary")
        assert "boom on stderr" in by_server["dies"]
        assert f"its stderr is in {tmp_path / 'mcp' / 'dies.log'}" in by_server["dies"]
        assert "boom on stderr" in (tmp_path / "mcp" / "dies.log").read_text()
        assert "did not answer within 1s" in by_server["mute"]
        assert "${MCP_TEST_NOT_SET} is not set" in by_server["unset"]
        rows = mcp_status(coordinator)
        assert {name: row["state"] for name, row in rows.items()} == {
            "good": "connected", "missing": "failed", "dies": "failed", "mute": "failed", "unset": "failed"}
        assert "mcp__good__echo" in coordinator.get("tools")
        assert not any(name.startswith(("mcp__missing", "mcp__dies")) for name in coordinator.get("tools"))
    finally:
        await coordinator.cleanup()


async def test_stdio_server_env_is_expanded_and_api_keys_are_not_inherited(
        mount_mcp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-must-not-leak")
    monkeypatch.setenv("MCP_TEST_GREETING", "hello from the environment")
    command = stdio_command()
    coordinator = await mount_mcp({"servers": {"local": {
        "command": command[0], "args": command[1:],
        "env": {**stdio_server_env(), "GREETING": "${MCP_TEST_GREETING}", "OTHER": "${MCP_TEST_NOPE:-dflt}"}}}},
        tmp_path)
    try:
        env = coordinator.get("tools")["mcp__local__env"]
        assert (await env.execute({"name": "GREETING"})).output == "hello from the environment"
        assert (await env.execute({"name": "OTHER"})).output == "dflt"
        assert (await env.execute({"name": "ANTHROPIC_API_KEY"})).output == "<unset>"
    finally:
        await coordinator.cleanup()


async def test_a_crashed_stdio_server_is_restarted_on_the_next_call(mount_mcp, mcp_status, tmp_path: Path) -> None:
    command = stdio_command()
    coordinator = await mount_mcp({"servers": {"local": {"command": command[0], "args": command[1:],
                                                         "env": stdio_server_env()}}}, tmp_path)
    try:
        tools = coordinator.get("tools")
        first_pid = (await tools["mcp__local__pid"].execute({})).output
        crashed = await tools["mcp__local__crash"].execute({})
        assert not crashed.success
        assert "closed the connection" in crashed.output and "restarted on the next call" in crashed.output
        assert mcp_status(coordinator)["local"]["state"] == "crashed"
        assert [m["message"] for m in coordinator.display_system.messages] == [
            "MCP server 'local' stopped: Connection closed (restarted on the next call)"]
        assert (await tools["mcp__local__echo"].execute({"text": "back"})).output == "echo: back"
        assert (await tools["mcp__local__pid"].execute({})).output != first_pid
        assert mcp_status(coordinator)["local"]["state"] == "connected"
    finally:
        await coordinator.cleanup()


async def test_an_http_server_that_went_away_fails_the_call_and_is_retried_on_the_next(
        mount_mcp, mcp_status, tmp_path: Path) -> None:
    from mcptestserver.fixtures import start_http_server, stop_server

    process, url = start_http_server("http")
    coordinator = await mount_mcp({"servers": {"gone": {"type": "http", "url": url, "startup_timeout": 5}}},
                                  tmp_path)
    try:
        echo = coordinator.get("tools")["mcp__gone__echo"]
        assert (await echo.execute({"text": "before"})).output == "echo: before"
        stop_server(process)
        failed = await echo.execute({"text": "after"})
        assert not failed.success
        assert failed.output == ("MCP server 'gone' closed the connection (Connection closed); "
                                 "it is restarted on the next call")
        assert mcp_status(coordinator)["gone"]["state"] == "crashed"
        retried = await echo.execute({"text": "again"})
        assert not retried.success and "MCP server 'gone' could not be restarted" in retried.output
    finally:
        await coordinator.cleanup()


async def test_servers_start_in_parallel(mount_mcp, mcp_status, tmp_path: Path) -> None:
    """Each server's command waits on the other through a FIFO (a writer blocks until a reader opens it), so
    both can only come up when they are started at the same time."""
    import os
    import shlex

    fifo = tmp_path / "rendezvous.fifo"
    os.mkfifo(fifo)
    server = shlex.join(stdio_command())
    first = f"cat {shlex.quote(str(fifo))} > /dev/null && exec {server}"
    second = f"echo ready > {shlex.quote(str(fifo))} && exec {server}"
    coordinator = await mount_mcp({"startup_timeout": 20, "servers": {
        "first": {"command": "sh", "args": ["-c", first], "env": stdio_server_env()},
        "second": {"command": "sh", "args": ["-c", second], "env": stdio_server_env()}}}, tmp_path)
    try:
        assert {name: row["state"] for name, row in mcp_status(coordinator).items()} == {
            "first": "connected", "second": "connected"}
    finally:
        await coordinator.cleanup()
