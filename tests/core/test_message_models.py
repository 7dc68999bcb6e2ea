"""Behaviour of the request/response envelope models (reference section 3.2, section 13 item 47)."""

from __future__ import annotations

import json
import warnings
from decimal import Decimal

import pytest
from pydantic import TypeAdapter, ValidationError

from amplifier_core.message_models import (
    ChatRequest,
    ChatResponse,
    ContentBlockUnion,
    ImageBlock,
    Message,
    ReasoningBlock,
    RedactedThinkingBlock,
    ResponseFormatJsonSchema,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
    Usage,
    response_text,
)


def test_discriminated_union_parses_block_dicts() -> None:
    message = Message.model_validate(
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "thinking", "thinking": "hmm", "signature": "sig=="},
                {"type": "redacted_thinking", "data": "xx"},
                {"type": "tool_call", "id": "c1", "name": "bash", "input": {"cmd": "ls"}},
                {"type": "tool_result", "tool_call_id": "c1", "output": {"ok": True}},
                {"type": "image", "source": {"url": "u"}},
                {"type": "reasoning", "content": [], "summary": ["s"]},
            ],
        }
    )
    kinds = [type(block) for block in message.content]
    assert kinds == [TextBlock, ThinkingBlock, RedactedThinkingBlock, ToolCallBlock, ToolResultBlock,
                     ImageBlock, ReasoningBlock]


def test_unknown_block_type_rejected() -> None:
    with pytest.raises(ValidationError):
        TypeAdapter(ContentBlockUnion).validate_python({"type": "video", "url": "x"})


def test_extra_fields_preserved_roundtrip() -> None:
    raw = {"role": "assistant", "content": [{"type": "text", "text": "t", "cache_control": {"type": "x"}}],
           "provider_extra": 7}
    message = Message.model_validate(raw)
    dumped = message.model_dump(exclude_none=True)
    assert dumped["provider_extra"] == 7
    assert dumped["content"][0]["cache_control"] == {"type": "x"}
    assert Message.model_validate(dumped) == message


def test_thinking_signature_roundtrips_byte_for_byte() -> None:
    block = ThinkingBlock(thinking="t", signature="EqQBCkYIARgCIkD/+==", content=[{"x": 1}])
    again = ThinkingBlock.model_validate(block.model_dump())
    assert again.signature == "EqQBCkYIARgCIkD/+==" and again.content == [{"x": 1}]


def test_invalid_role_rejected() -> None:
    with pytest.raises(ValidationError):
        Message(role="robot", content="hi")


def test_every_upstream_role_accepted() -> None:
    for role in ("system", "developer", "user", "assistant", "function", "tool"):
        assert Message(role=role, content="x").role == role


def test_json_schema_format_serializes_as_schema_alias() -> None:
    fmt = ResponseFormatJsonSchema(json_schema={"type": "object"}, strict=True)
    assert fmt.model_dump(by_alias=True)["schema"] == {"type": "object"}
    assert ResponseFormatJsonSchema.model_validate({"schema": {"a": 1}}).json_schema == {"a": 1}
    request = ChatRequest(messages=[Message(role="user", content="q")], response_format=fmt)
    assert '"schema":{"type":"object"}' in request.model_dump_json()


def test_block_visibility_defaults_none_and_is_constrained() -> None:
    assert TextBlock(text="x").visibility is None
    assert TextBlock(text="x", visibility="developer").visibility == "developer"
    with pytest.raises(ValidationError):
        TextBlock(text="x", visibility="everyone")


def test_tool_spec_and_tool_call_require_fields() -> None:
    assert ToolSpec(name="t", parameters={}).description is None
    with pytest.raises(ValidationError):
        ToolSpec(name="t")
    with pytest.raises(ValidationError):
        ToolCall(id="1", name="t")


def test_chat_request_defaults() -> None:
    request = ChatRequest(messages=[{"role": "user", "content": "q"}])
    assert request.stream is False and request.tools is None and request.model is None
    assert isinstance(request.messages[0], Message)


def test_usage_requires_totals_and_allows_provider_keys() -> None:
    usage = Usage(input_tokens=1, output_tokens=2, total_tokens=3, server_tool_use=4)
    assert usage.model_dump()["server_tool_use"] == 4
    assert usage.cache_read_tokens is None and usage.cost_usd is None
    with pytest.raises(ValidationError):
        Usage(input_tokens=1, output_tokens=2)


def test_usage_cost_rejects_float_and_dumps_as_string() -> None:
    with pytest.raises(ValidationError, match="not float"):
        Usage(input_tokens=1, output_tokens=1, total_tokens=2, cost_usd=0.5)
    usage = Usage(input_tokens=1, output_tokens=1, total_tokens=2, cost_usd=Decimal("0.0021"))
    assert usage.model_dump(mode="json")["cost_usd"] == "0.0021"
    assert usage.model_dump()["cost_usd"] == "0.0021"  # plain dumps too: events built from them stay JSON-safe
    assert usage.cost_usd == Decimal("0.0021")  # attribute access keeps the Decimal for arithmetic
    assert Usage(input_tokens=1, output_tokens=1, total_tokens=2).model_dump()["cost_usd"] is None
    assert Usage.model_validate_json(usage.model_dump_json()).cost_usd == Decimal("0.0021")


def test_response_text_joins_text_blocks_only() -> None:
    blocks = [TextBlock(text="a"), ThinkingBlock(thinking="secret"), TextBlock(text="b")]
    assert response_text(ChatResponse(content=blocks)) == "a\n\nb"
    assert response_text(ChatResponse(content=[])) == ""


def test_a_subclass_with_a_text_field_imports_without_a_shadowing_warning() -> None:
    """Upstream provider-openai subclasses ChatResponse with a ``text`` field; 2.0.2 has no ``text`` attribute, so
    pydantic must not warn that the field shadows one (and the field holds what it is given)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")

        class OpenAIChatResponse(ChatResponse):
            text: str | None = None

    assert OpenAIChatResponse(content=[], text="whole").text == "whole"
    assert not hasattr(ChatResponse(content=[TextBlock(text="a")]), "text")


def test_block_dumps_keep_2_0_2_key_order() -> None:
    """Upstream module tests compare ``json.dumps`` of dumped blocks as strings, so key order is surface."""
    from amplifier_core.message_models import (
        ImageBlock,
        ReasoningBlock,
        RedactedThinkingBlock,
        TextBlock,
        ThinkingBlock,
        ToolCallBlock,
        ToolResultBlock,
    )

    assert json.dumps(TextBlock(text="hi").model_dump()) == '{"type": "text", "text": "hi", "visibility": null}'
    assert [list(cls.model_fields) for cls in (ThinkingBlock, RedactedThinkingBlock, ToolCallBlock, ToolResultBlock,
                                               ImageBlock, ReasoningBlock)] == [
        ["type", "thinking", "signature", "visibility", "content"],
        ["type", "data", "visibility"],
        ["type", "id", "name", "input", "visibility"],
        ["type", "tool_call_id", "output", "visibility"],
        ["type", "source", "visibility"],
        ["type", "content", "summary", "visibility"],
    ]


def test_config_field_dump_keeps_2_0_2_key_order() -> None:
    from amplifier_core.models import ConfigField

    dumped = ConfigField(id="api_key", display_name="API key", prompt="Key?").model_dump()
    assert list(dumped)[:4] == ["id", "display_name", "field_type", "prompt"]
