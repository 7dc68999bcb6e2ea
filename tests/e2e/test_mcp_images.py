"""An image an MCP tool returns reaches the model: inside the Anthropic tool_result, as a note for OpenAI's
Responses API (function_call_output holds text only); events and logs carry a note, never the bytes."""

from __future__ import annotations

import json

import pytest
from fakeapi import ToolCall, Turn


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_an_mcp_image_result_reaches_the_model(e2e_api, mcp_http_server: str, provider: str) -> None:
    (e2e_api.project / ".amplifier" / "mcp.json").write_text(json.dumps({"mcpServers": {
        "web": {"type": "http", "url": mcp_http_server}}}))
    e2e_api.profile("mcp", provider=provider, tools=("tool-mcp",),
                    hooks=("hooks-streaming-ui", "hooks-logging"))
    e2e_api.server.add(Turn(tool_calls=[ToolCall("mcp__web__picture", {})]), when_last_user_contains="picture")
    e2e_api.server.add(Turn(text="a one-pixel picture"), when_last_tool_result_contains="image/png")
    result = e2e_api.run("run", "-P", "mcp", "--approval", "allow", "show me the picture")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "a one-pixel picture\n"
    body = e2e_api.server.requests[-1].body
    if provider == "anthropic":
        [result_block] = [block for message in body["messages"] if isinstance(message["content"], list)
                          for block in message["content"] if block.get("type") == "tool_result"]
        kinds = [block["type"] for block in result_block["content"]]
        assert kinds == ["text", "image"], result_block
        assert result_block["content"][1]["source"]["media_type"] == "image/png"
        assert result_block["content"][0]["text"] == "[image: image/png, 70 bytes, attached]"
    else:
        [output] = [item["output"] for item in body["input"] if item.get("type") == "function_call_output"]
        assert output == ("[image: image/png, 70 bytes, attached]\n"
                          "[image: image/png, not shown: tool results here carry no images]")
    events = (e2e_api.only_session() / "events.jsonl").read_text("utf-8")
    assert "iVBORw0KGgo" not in events  # the PNG's base64 never lands in the event log
