"""ToolResult.content: rich blocks pass a strict boundary on the way in, on assignment and on the way out."""

from __future__ import annotations

import base64
from decimal import Decimal

import pytest
from pydantic import ValidationError

from amplifier_core.message_models import ImageBlock, TextBlock
from amplifier_core.models import ToolResult
from amplifier_core.tool_result_content import IMAGE_OMITTED_TEXT

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n0000").decode()


def image(media_type: str = "image/png", data: str = PNG, kind: str = "base64") -> dict:
    return {"type": "image", "source": {"type": kind, "media_type": media_type, "data": data}}


def test_text_and_image_blocks_are_rebuilt_with_only_their_known_keys() -> None:
    result = ToolResult(content=[{"type": "text", "text": "hi", "visibility": "user", "smuggled": 1},
                                 {**image(), "extra": True}])
    assert result.content == [TextBlock(text="hi"), ImageBlock(source={"type": "base64", "media_type": "image/png",
                                                                       "data": PNG})]
    assert result.model_dump()["content"] == [
        {"type": "text", "text": "hi"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
    ]


def test_pydantic_blocks_and_tuples_are_accepted() -> None:
    assert ToolResult(content=(TextBlock(text="a"),)).model_dump()["content"] == [{"type": "text", "text": "a"}]


@pytest.mark.parametrize(("content", "message"), [
    ("plain string", "invalid tool result content"),
    ({"type": "text", "text": "not in a list"}, "invalid tool result content"),
    ([{"type": "audio", "data": "x"}], "invalid tool result content"),
    ([{"type": "text"}], "invalid tool result content"),
    ([{"type": "text", "text": 5}], "invalid tool result content"),
    ([{"type": "text", "text": "a"}, "b"], "invalid tool result content"),
    ([image(kind="url")], "invalid tool result image source"),
    ([image(media_type="text/html")], "invalid tool result image media type"),
    ([image(media_type="IMAGE/PNG")], "invalid tool result image media type"),
    ([image(data="!!!")], "invalid tool result image data"),
    ([image(data="aGk")], "invalid tool result image data"),
    ([image(data="")], "invalid tool result image data"),
])
def test_anything_else_is_rejected_without_echoing_the_input(content: object, message: str) -> None:
    with pytest.raises(ValidationError, match=message) as raised:
        ToolResult(content=content)
    assert "input_value" not in str(raised.value)


def test_no_content_and_empty_content_leave_the_legacy_key_set() -> None:
    assert ToolResult(output="x").model_dump() == {"success": True, "output": "x", "error": None}
    assert ToolResult(content=[]).content is None
    assert "content" not in ToolResult(output="x").model_dump_json()


def test_assignment_and_copies_are_validated_too() -> None:
    result = ToolResult(output="x")
    with pytest.raises(ValidationError):
        result.content = [{"type": "bogus"}]
    with pytest.raises(ValidationError):
        result.model_copy(update={"content": [{"type": "bogus"}]})
    copied = result.model_copy(update={"content": [{"type": "text", "text": "ok"}]})
    assert copied.content == [TextBlock(text="ok")] and result.content is None


def test_hook_presentation_replaces_images_and_is_json_safe() -> None:
    result = ToolResult(output={"price": Decimal("9.99")}, content=[{"type": "text", "text": "t"}, image()])
    assert result.safe_hook_presentation() == {
        "success": True, "output": {"price": "9.99"}, "error": None,
        "content": [{"type": "text", "text": "t"}, {"type": "text", "text": IMAGE_OMITTED_TEXT}],
    }
    assert "content" not in ToolResult(output="o").safe_hook_presentation()


def test_failure_with_only_an_error_still_fills_output() -> None:
    assert ToolResult(success=False, error={"message": "boom"}).output == "boom"


def test_content_only_result_shows_its_text_and_an_image_placeholder_to_the_model() -> None:
    result = ToolResult(content=[{"type": "text", "text": "seen\x00"}, image(media_type="image/jpeg")])
    assert result.get_serialized_output() == "seen\n\n[image: image/jpeg]"
    assert ToolResult(output="o", content=[{"type": "text", "text": "t"}]).get_serialized_output() == "o"
