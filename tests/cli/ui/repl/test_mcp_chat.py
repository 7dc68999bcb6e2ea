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
    assert "web: connected (http) · 12 tool(s), 1 prompt(s)" in shown
    chat.prompt()
    chat.exchange("/status", "web connected (12 tools)")
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
