"""MCP end to end: `amplifier run` with the fake LLM server calling tools of real MCP servers (the third-party
mcp-server-time over stdio, the SDK-written test server over Streamable HTTP), configured through the files
other agents use, gated by approvals, with a broken server costing one warning line, and no server process
outliving amplifier (Ctrl-C, kill -9)."""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import threading
from pathlib import Path

import pytest
from fakeapi import ToolCall, Turn
from mcptestserver import module_server, stdio_command
from mcptestserver.fixtures import stdio_server_env

TOKEN = "e2e-secret-token-4242"


def _configure(e2e_api, http_url: str, *, extra: dict | None = None) -> None:
    (e2e_api.project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "time": module_server("mcp_server_time", "--local-timezone", "UTC")}}))
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


def test_run_calls_tools_of_stdio_and_http_mcp_servers(e2e_api, mcp_http_server: str) -> None:
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


def test_servers_come_from_the_user_config_dir_and_the_project_root_when_run_in_a_subdirectory(e2e_api) -> None:
    user_file = e2e_api.home / "config" / "mcp.json"
    user_file.parent.mkdir(parents=True, exist_ok=True)
    user_file.write_text(json.dumps({"mcpServers": {"clock": module_server("mcp_server_time")}}))
    (e2e_api.project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "echo": module_server("amplifier_module_tool_mcp.echo_server")}}))
    e2e_api.profile("mcp", tools=("tool-mcp",))
    e2e_api.server.add(Turn(tool_calls=[ToolCall("mcp__echo__echo", {"text": "from-subdir"})]),
                       when_last_user_contains="echo")
    e2e_api.server.add(Turn(text="done"), when_last_tool_result_contains="from-subdir")
    subdirectory = e2e_api.project / "src" / "deep"
    subdirectory.mkdir(parents=True)
    result = e2e_api.run("run", "-P", "mcp", "--approval", "allow", "echo please", cwd=subdirectory)
    assert result.returncode == 0, result.stderr
    assert {"mcp__clock__get_current_time", "mcp__echo__echo"} <= set(e2e_api.server.requests[0].tool_names)


def test_mcp_tools_need_approval_by_default(e2e_api, mcp_http_server: str) -> None:
    _configure(e2e_api, mcp_http_server)
    _script(e2e_api.server)
    e2e_api.server.add(Turn(text="The time tool was denied."), when_last_tool_result_contains="denied")
    result = e2e_api.run("run", "-P", "mcp", "what time is it in Tokyo?")  # no terminal: nobody can approve
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The time tool was denied.\n"
    assert "mcp__time__get_current_time" in result.stderr


def test_a_broken_server_is_one_warning_and_the_run_goes_on(e2e_api, mcp_http_server: str,
                                                            tmp_path: Path) -> None:
    _configure(e2e_api, mcp_http_server, extra={"broken": {"command": "no-such-mcp-server-e2e"}})
    _script(e2e_api.server)
    result = e2e_api.run("run", "-P", "mcp", "--approval", "allow", "what time is it in Tokyo?")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Tokyo time fetched and echoed.\n"
    warnings = [line for line in result.stderr.splitlines() if "broken" in line]
    assert warnings == ["[warning] tool-mcp: MCP server 'broken' failed to start: command not found: "
                        "no-such-mcp-server-e2e"]


def test_a_broken_mcp_server_entry_is_a_warning_naming_the_file_and_the_run_goes_on(e2e_api) -> None:
    (e2e_api.project / ".mcp.json").write_text('{"mcpServers": {"x": {"args": []}}}')
    e2e_api.profile("mcp", tools=("tool-mcp",))
    e2e_api.server.add(Turn(text="answered"))
    result = e2e_api.run("run", "-P", "mcp", "hello")
    assert result.returncode == 0, result.stderr
    assert "MCP server 'x' skipped" in result.stderr and str(e2e_api.project / ".mcp.json") in result.stderr
    assert "Traceback" not in result.stderr


@pytest.fixture(autouse=True)
def _no_unmatched_requests(e2e_api):
    yield
    assert not e2e_api.server.unmatched


def _exited(pid: int, timeout: float) -> bool:
    """Wait for a process to end: a pidfd becomes readable when it exits (no polling, no sleeping)."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([descriptor], [], [], timeout)[0])
    finally:
        os.close(descriptor)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pidfd and PR_SET_PDEATHSIG are Linux")
@pytest.mark.parametrize(("how", "linger"), [("sigint", False), ("sigkill", False), ("sigkill", True)],
                         ids=["ctrl-c", "kill-9", "kill-9-server-ignores-stdin"])
def test_no_server_outlives_amplifier(e2e_api, how: str, linger: bool) -> None:
    """The server's pid comes back as a tool result; while the next model request is held, amplifier is
    interrupted or killed, and the server must end too (with --linger only PR_SET_PDEATHSIG can end it)."""
    command = stdio_command() + (["--linger"] if linger else [])
    (e2e_api.project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "local": {"command": command[0], "args": command[1:], "env": stdio_server_env()}}}))
    e2e_api.profile("mcp", tools=("tool-mcp",))
    gate = threading.Event()
    e2e_api.server.add(Turn(tool_calls=[ToolCall("mcp__local__pid", {})]), when_last_user_contains="pid")
    held = e2e_api.server.add(Turn(text="never"), when=lambda request: request.last_tool_result_text.isdigit(),
                              gate=gate)
    child = e2e_api.spawn("run", "-P", "mcp", "--approval", "allow", "what is the server's pid?")
    try:
        assert held.matched.wait(60), "the tool result never reached the model"
        server_pid = int(e2e_api.server.requests[-1].last_tool_result_text)
        child.send_signal(signal.SIGINT if how == "sigint" else signal.SIGKILL)
        child.communicate(timeout=60)
        assert child.returncode == (130 if how == "sigint" else -signal.SIGKILL)
        assert _exited(server_pid, 30), f"MCP server {server_pid} outlived amplifier"
    finally:
        gate.set()
        try:
            os.kill(server_pid, signal.SIGKILL)  # never leave one behind a failed test
        except (ProcessLookupError, UnboundLocalError):
            pass
