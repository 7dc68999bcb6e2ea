"""The pure parts of `amplifier acp`: the initialize answer (checked against the SDK's schema), the editor's MCP
server specs in tool-mcp's form, how tool calls are presented, and what a prompt's blocks become."""

from __future__ import annotations

import base64
from pathlib import Path

import acp
import pytest
from acp import schema

from amplifier_cli.ui.acp.handshake import ParamsProblem, initialize_result
from amplifier_cli.ui.acp.opening import client_servers
from amplifier_cli.ui.acp.prompt_content import PromptProblem, prompt_content
from amplifier_cli.ui.acp.tool_calls import result_text, tool_kind, tool_title


@pytest.mark.parametrize("offered", [1, 2, 65535])
def test_initialize_answers_with_the_one_version_it_speaks_in_the_sdks_shape(offered: int) -> None:
    answer = schema.InitializeResponse.model_validate(initialize_result({"protocolVersion": offered}))
    assert answer.protocol_version == 1 and answer.agent_capabilities.load_session


@pytest.mark.parametrize("params", [{}, {"protocolVersion": "1"}, {"protocolVersion": True},
                                    {"protocolVersion": -1}, None])
def test_initialize_refuses_a_version_that_is_no_version(params) -> None:
    with pytest.raises(ParamsProblem):
        initialize_result(params)


def test_editor_servers_become_tool_mcp_specs_and_odd_ones_a_note() -> None:
    given = [
        schema.McpServerStdio(name="local tools", command="srv", args=["--x"],
                              env=[schema.EnvVariable(name="TOKEN", value="t")]),
        schema.HttpMcpServer(type="http", name="docs", url="https://docs.example/mcp",
                             headers=[schema.HttpHeader(name="Authorization", value="Bearer b")]),
        schema.SseMcpServer(type="sse", name="old", url="https://old.example/sse", headers=[]),
        {"type": "acp", "name": "inside", "id": "x"},
    ]
    specs, notes = client_servers([item if isinstance(item, dict) else item.model_dump(mode="json", by_alias=True)
                                   for item in given])
    assert specs == {
        "local-tools": {"command": "srv", "args": ["--x"], "env": {"TOKEN": "t"}},
        "docs": {"type": "http", "url": "https://docs.example/mcp", "headers": {"Authorization": "Bearer b"}},
        "old": {"type": "sse", "url": "https://old.example/sse", "headers": {}},
    }
    assert notes == ["the editor's MCP server 'inside' uses a transport amplifier does not speak (acp)"]


def test_tool_calls_get_a_kind_and_a_title_a_person_reads(tmp_path: Path) -> None:
    assert [tool_kind(name) for name in ("read_file", "edit_file", "grep", "bash", "web_fetch", "todo",
                                         "mcp__x__y")] == ["read", "edit", "search", "execute", "fetch", "think",
                                                           "other"]
    assert tool_title("read_file", {"file_path": str(tmp_path / "a.py")}, tmp_path) == "Read a.py"
    assert tool_title("grep", {"pattern": "TODO", "path": "src"}, tmp_path) == "Search TODO in src"
    assert tool_title("bash", {"command": "pytest -q"}, tmp_path) == "`pytest -q`"
    assert tool_title("mcp__x__y", {}, tmp_path) == "mcp__x__y"
    assert result_text({"success": False, "error": {"message": "boom"}}) == "boom"
    assert result_text("x" * 30_000).endswith("(10,000 more characters)")


def test_a_prompts_blocks_become_text_files_and_images(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    png = b"\x89PNG\r\n\x1a\n" + bytes(30)
    content = prompt_content([
        acp.text_block("look"),
        acp.resource_link_block("a.txt", (tmp_path / "a.txt").as_uri()),
        acp.image_block(base64.b64encode(png).decode(), "image/png"),
        acp.resource_block(acp.embedded_blob_resource("file:///x.png", base64.b64encode(png).decode())),
    ], tmp_path)
    assert content.text == 'look\n\n<file path="a.txt">\nalpha\n</file>'
    assert len(content.images) == 2


def test_a_block_that_cannot_be_sent_names_itself(tmp_path: Path) -> None:
    with pytest.raises(PromptProblem, match="not UTF-8 text nor a PNG"):
        prompt_content([acp.resource_block(acp.embedded_blob_resource("file:///b.bin", base64.b64encode(
            b"\x00\xff\x00").decode()))], tmp_path)
    with pytest.raises(PromptProblem, match="not valid base64"):
        prompt_content([acp.resource_block(acp.embedded_blob_resource("file:///b.bin", "!!!"))], tmp_path)


def test_the_modes_an_editor_is_offered_are_the_sessions_modes_and_the_command_lines() -> None:
    """Three light modules name the modes (the command line's check and the ACP handshake must not import the
    sessions layer): they stay the same list."""
    from amplifier_cli.commands.launch import SESSION_MODES
    from amplifier_cli.sessions.plan_mode import MODES
    from amplifier_cli.ui.acp.handshake import MODES as OFFERED

    assert set(MODES) == set(SESSION_MODES) == {mode for mode, _, _ in OFFERED}
