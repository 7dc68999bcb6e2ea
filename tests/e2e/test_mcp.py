"""MCP end to end: `amplifier run` with the fake LLM server calling tools of real MCP servers (the third-party
mcp-server-time over stdio, the SDK-written test server over Streamable HTTP), configured through the files
other agents use, gated by approvals, with a broken server costing one warning line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fakeapi import ToolCall, Turn
from mcptestserver.fixtures import mcp_http_server  # noqa: F401 - pytest fixture

TOKEN = "e2e-secret-token-4242"


def _configure(e2e_api, http_url: str, *, extra: dict | None = None) -> None:
    (e2e_api.project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "time": {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}}}))
    (e2e_api.project / ".amplifier" / "mcp.json").write_text(json.dumps({"mcpServers": {
        "web": {"type": "http", "url": http_url, "headers": {"Authorization": "Bearer ${MCP_E2E_TOKEN}"}},
        **(extra or {})}}))
    e2e_api.profile("mcp", tools=("tool-mcp",),
                    hooks=("hooks-streaming-ui", "hooks-approval", "hooks-logging", "hooks-redaction"))
    e2e_api.env["MCP_E2E_TOKEN"] = TOKEN


def _script(server) -> None:
    server.add(Turn(tool_calls=[ToolCall("mcp__time__get_current_time", {"timezone": "Asia/Tokyo"})]),
               when_last_user_contains="time")
    server.add(Turn(tool_calls=[ToolCall("mcp__web__echo", {"text": "from the model"})]),
               when_last_tool_result_contains="Asia/Tokyo")
    server.add(Turn(text="Tokyo time fetched and echoed."), when_last_tool_result_contains="echo: from the model")


def test_run_calls_tools_of_stdio_and_http_mcp_servers(e2e_api, mcp_http_server: str) -> None:  # noqa: F811
    _configure(e2e_api, mcp_http_server)
    _script(e2e_api.server)
    result = e2e_api.run("run", "-P", "mcp", "--approval", "allow", "what time is it in Tokyo?")

    assert result.returncode == 0, result.stderr
    assert result.stdout == "Tokyo time fetched and echoed.\n"
    first = e2e_api.server.requests[0]
    assert {"mcp__time__get_current_time", "mcp__time__convert_time", "mcp__web__echo"} <= set(first.tool_names)
    assert '"timezone": "Asia/Tokyo"' in e2e_api.server.requests[1].last_tool_result_text
    assert e2e_api.server.requests[2].last_tool_result_text == "echo: from the model"
    session = e2e_api.only_session()
    assert (session / "mcp" / "time.log").exists()  # the stdio server's stderr
    for path in session.rglob("*"):  # the header's ${MCP_E2E_TOKEN} was expanded only in memory
        assert not path.is_file() or TOKEN not in path.read_text(errors="replace"), path


def test_mcp_tools_need_approval_by_default(e2e_api, mcp_http_server: str) -> None:  # noqa: F811
    _configure(e2e_api, mcp_http_server)
    _script(e2e_api.server)
    e2e_api.server.add(Turn(text="The time tool was denied."), when_last_tool_result_contains="denied")
    result = e2e_api.run("run", "-P", "mcp", "what time is it in Tokyo?")  # no terminal: nobody can approve
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The time tool was denied.\n"
    assert "mcp__time__get_current_time" in result.stderr


def test_a_broken_server_is_one_warning_and_the_run_goes_on(e2e_api, mcp_http_server: str,  # noqa: F811
                                                            tmp_path: Path) -> None:
    _configure(e2e_api, mcp_http_server, extra={"broken": {"command": "no-such-mcp-server-e2e"}})
    _script(e2e_api.server)
    result = e2e_api.run("run", "-P", "mcp", "--approval", "allow", "what time is it in Tokyo?")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Tokyo time fetched and echoed.\n"
    warnings = [line for line in result.stderr.splitlines() if "broken" in line]
    assert warnings == ["[warning] tool-mcp: MCP server 'broken' failed to start: command not found: "
                        "no-such-mcp-server-e2e"]


def test_a_broken_mcp_file_is_a_configuration_error_naming_the_file(e2e_api) -> None:
    (e2e_api.project / ".mcp.json").write_text('{"mcpServers": {"x": {"args": []}}}')
    e2e_api.profile("mcp", tools=("tool-mcp",))
    result = e2e_api.run("run", "-P", "mcp", "hello")
    assert result.returncode == 2, result.stderr
    assert str(e2e_api.project / ".mcp.json") in result.stderr
    assert "Traceback" not in result.stderr


@pytest.fixture(autouse=True)
def _no_unmatched_requests(e2e_api):
    yield
    assert not e2e_api.server.unmatched
