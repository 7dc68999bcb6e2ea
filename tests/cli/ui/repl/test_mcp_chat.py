"""MCP in the chat: /mcp and /status show the servers, a server prompt is a slash command whose text is sent
as the message, and Ctrl-C during an MCP tool cancels the request on the server. The server is the
SDK-written test server over Streamable HTTP, a real process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from fakeapi import ToolCall, Turn


@pytest.fixture
def mcp_chat(chat_project: Path, mcp_http_server: str) -> Path:
    profile_path = chat_project / ".amplifier" / "profiles" / "chat-test.yaml"
    profile = yaml.safe_load(profile_path.read_text(encoding="utf-8"))
    profile["tools"].append({"module": "tool-mcp"})
    for hook in profile["hooks"]:
        if hook["module"] == "hooks-approval":
            hook["config"]["rules"].append({"tool": "mcp__web__*", "action": "allow"})
    profile_path.write_text(yaml.safe_dump(profile), encoding="utf-8")
    servers = {"mcpServers": {"web": {"type": "http", "url": mcp_http_server}}}
    (chat_project / ".mcp.json").write_text(json.dumps(servers), encoding="utf-8")
    from testkit.trust import trust_project_now

    trust_project_now(chat_project)  # the user's own project: its server starts
    return chat_project


def test_mcp_and_status_show_servers_and_a_prompt_is_a_slash_command(spawn_chat, fake_api, mcp_chat) -> None:
    fake_api.add(Turn(text="review-answer"), when_last_user_contains="Please review the parser carefully.")
    chat = spawn_chat()
    chat.ready()
    chat.send_line("/mcp")
    shown = chat.expect("/mcp__web__review topic=…")
    assert "web: connected (http) · 15 tool(s), 1 prompt(s)" in shown
    chat.prompt()
    chat.exchange("/status", "web connected (15 tools)")
    chat.exchange("/mcp__web__review", "/mcp__web__review needs topic")
    chat.exchange("/mcp__web__review the parser", "review-answer")
    assert chat.exit() == 0
    assert fake_api.requests[-1].user_texts == ["Please review the parser carefully."]


def test_ctrl_c_cancels_the_mcp_request_on_the_server(spawn_chat, fake_api, mcp_chat) -> None:
    fake_api.add(Turn(tool_calls=[ToolCall("mcp__web__slow", {}), ToolCall("mcp__web__slow_started", {})]),
                 when_last_user_contains="start slow")
    fake_api.add(Turn(tool_calls=[ToolCall("mcp__web__was_cancelled", {})]), when_last_user_contains="check")
    fake_api.add(Turn(text="server-confirms-cancel"), when_last_tool_result_contains="cancelled")
    chat = spawn_chat()
    chat.ready()
    chat.send_line("start slow")
    chat.expect("started")  # slow_started's result: the slow request is running on the server
    chat.child.sendcontrol("c")
    chat.expect("Stopping after the running tool")
    chat.child.sendcontrol("c")
    chat.expect("Interrupted")
    chat.prompt()
    chat.exchange("check", "server-confirms-cancel")
    assert chat.exit() == 0
    assert fake_api.requests[-1].last_tool_result_text == "cancelled"


def test_a_resource_mention_attaches_it_and_completes_with_tab(spawn_chat, fake_api, mcp_chat) -> None:
    from mcptestserver import README_TEXT

    fake_api.add(Turn(text="read-both"), when_last_user_contains="Hello, ada, from a resource template.")
    chat = spawn_chat()
    chat.ready()
    chat.child.send("@web:test://gr\t")  # Tab completes the template's URI
    chat.expect("greeting/{name}")
    chat.child.sendcontrol("c")  # clear the line
    chat.send_line("compare @web:test://readme with @web:test://greeting/ada please")
    chat.expect("attached web:test://readme")
    chat.expect("read-both")
    chat.prompt()
    sent = fake_api.requests[-1].user_texts[-1]
    assert sent.startswith("compare @web:test://readme with @web:test://greeting/ada please\n\n")
    assert f'<resource server="web" uri="test://readme">\n{README_TEXT}\n</resource>' in sent
    chat.exchange("what of @web:test://nothing-here", "could not read it")
    assert len(fake_api.requests) == 1  # the failed mention was not sent
    assert chat.exit() == 0


@pytest.fixture
def local_mcp_chat(chat_project: Path) -> Path:
    """The test server over stdio, this chat's own process: `grow` may change its tools."""
    from mcptestserver import stdio_command
    from mcptestserver.fixtures import stdio_server_env
    from testkit.trust import trust_project_now

    profile_path = chat_project / ".amplifier" / "profiles" / "chat-test.yaml"
    profile = yaml.safe_load(profile_path.read_text(encoding="utf-8"))
    profile["tools"].append({"module": "tool-mcp"})
    for hook in profile["hooks"]:
        if hook["module"] == "hooks-approval":
            hook["config"]["rules"].append({"tool": "mcp__local__*", "action": "allow"})
    profile_path.write_text(yaml.safe_dump(profile), encoding="utf-8")
    command = stdio_command()
    servers = {"mcpServers": {"local": {"command": command[0], "args": command[1:], "env": stdio_server_env()}}}
    (chat_project / ".mcp.json").write_text(json.dumps(servers), encoding="utf-8")
    trust_project_now(chat_project)
    return chat_project


def test_a_tool_the_server_adds_mid_session_is_offered_in_the_next_request(spawn_chat, fake_api,
                                                                          local_mcp_chat) -> None:
    fake_api.add(Turn(tool_calls=[ToolCall("mcp__local__grow", {"name": "fresh"})]), when_last_user_contains="grow")
    fake_api.add(Turn(tool_calls=[ToolCall("mcp__local__fresh", {"text": "x"})]),
                 when_last_tool_result_contains="added fresh")
    fake_api.add(Turn(text="fresh-answered"), when_last_tool_result_contains="fresh: x")
    chat = spawn_chat()
    chat.ready()
    chat.exchange("grow a tool", "fresh-answered")
    assert "mcp__local__fresh" not in fake_api.requests[0].tool_names
    assert "mcp__local__fresh" in fake_api.requests[1].tool_names  # tools/list_changed, read before this request
    chat.exchange("/tools", "mcp__local__fresh")
    assert chat.exit() == 0


def test_an_elicitation_is_a_form_in_the_chat(spawn_chat, fake_api, local_mcp_chat) -> None:
    fake_api.add(Turn(tool_calls=[ToolCall("mcp__local__ask_name", {})]), when_last_user_contains="ask me")
    fake_api.add(Turn(text="greeted"), when_last_tool_result_contains="hello Ada")
    fake_api.add(Turn(tool_calls=[ToolCall("mcp__local__ask_name", {})]), when_last_user_contains="ask me again")
    fake_api.add(Turn(text="not-greeted"), when_last_tool_result_contains="no name (decline)")
    chat = spawn_chat()
    chat.ready()
    chat.send_line("ask me")
    chat.expect("MCP server 'local' asks")
    chat.expect("What is your name?")
    chat.expect("Name:")
    chat.send_line("Ada")
    chat.expect("greeted")
    chat.prompt()
    chat.send_line("ask me again")
    chat.expect("Name:")
    chat.child.sendcontrol("d")  # declines the form
    chat.expect("not-greeted")
    chat.prompt()
    assert chat.exit() == 0


def test_first_use_of_a_server_behind_oauth_logs_in_through_the_browser(spawn_chat, fake_api, chat_project,
                                                                        mcp_oauth_server: str, amplifier_home,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from mcptestserver.fixtures import browser_command
    from testkit.trust import trust_project_now

    profile_path = chat_project / ".amplifier" / "profiles" / "chat-test.yaml"
    profile = yaml.safe_load(profile_path.read_text(encoding="utf-8"))
    profile["tools"].append({"module": "tool-mcp"})
    for hook in profile["hooks"]:
        if hook["module"] == "hooks-approval":
            hook["config"]["rules"].append({"tool": "mcp__secure__*", "action": "allow"})
    profile_path.write_text(yaml.safe_dump(profile), encoding="utf-8")
    (chat_project / ".mcp.json").write_text(json.dumps({"mcpServers": {"secure": {"url": mcp_oauth_server}}}))
    trust_project_now(chat_project)
    monkeypatch.setenv("BROWSER", browser_command())
    fake_api.add(Turn(tool_calls=[ToolCall("mcp__secure__echo", {"text": "past the login"})]),
                 when_last_user_contains="echo")
    fake_api.add(Turn(text="logged-in-answer"), when_last_tool_result_contains="echo: past the login")
    chat = spawn_chat()
    chat.expect("MCP server 'secure' needs you to log in")
    chat.ready()
    chat.exchange("echo it", "logged-in-answer")
    chat.send_line("/mcp")
    chat.expect("secure: connected")
    chat.expect("logged in")
    chat.prompt()
    assert chat.exit() == 0
    assert "AMPLIFIER_MCP_OAUTH_" in (amplifier_home / "config" / "keys.env").read_text()
