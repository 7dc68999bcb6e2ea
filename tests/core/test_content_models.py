"""Behaviour of the streaming/event payload dataclasses (reference section 3.3)."""

from __future__ import annotations

from amplifier_core.content_models import (
    ContentBlock,
    ContentBlockType,
    TextContent,
    ThinkingContent,
    ToolCallContent,
    ToolResultContent,
)


def test_content_block_type_is_a_str_enum() -> None:
    assert ContentBlockType.TOOL_CALL == "tool_call"
    assert [member.value for member in ContentBlockType] == ["text", "thinking", "tool_call", "tool_result"]


def test_to_dict_never_includes_raw() -> None:
    assert ContentBlock(ContentBlockType.TEXT, raw={"x": 1}).to_dict() == {"type": "text"}
    assert TextContent(text="hi", raw={"x": 1}).to_dict() == {"type": "text", "text": "hi"}


def test_each_subclass_defaults_its_type() -> None:
    assert ThinkingContent().to_dict() == {"type": "thinking", "text": ""}
    assert ToolCallContent(id="c", name="n").to_dict() == {
        "type": "tool_call", "id": "c", "name": "n", "arguments": None}
    assert ToolResultContent(tool_call_id="c", output=1).to_dict() == {
        "type": "tool_result", "tool_call_id": "c", "output": 1}


def test_tool_result_content_includes_error_only_when_truthy() -> None:
    assert ToolResultContent(error="").to_dict().get("error") is None
    assert ToolResultContent(error="bad").to_dict()["error"] == "bad"
