"""Images: the app's `prompt.images` follow the prompt's text in the user message; images a tool returns in its
result's content follow the result's text in the tool message, while tool:post carries a note, not the bytes."""

from __future__ import annotations

from typing import Any

from loop_basic_doubles import EchoTool, FakeProvider, call, say

from amplifier_core.models import ToolResult

IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}


async def test_prompt_images_follow_the_text_of_the_user_message(harness) -> None:
    harness.coordinator.register_capability("prompt.images", [IMAGE])
    await harness.run("what is this?", FakeProvider(say("a dot")))
    assert harness.messages[0] == {"role": "user", "content": [{"type": "text", "text": "what is this?"}, IMAGE]}


async def test_without_prompt_images_the_user_message_is_plain_text(harness) -> None:
    await harness.run("hello", FakeProvider(say("hi")))
    assert harness.messages[0] == {"role": "user", "content": "hello"}


async def test_images_a_tool_returns_are_stored_after_its_text_and_events_carry_a_note(harness) -> None:
    tool = EchoTool("shot")

    async def screenshot(input: dict[str, Any]) -> ToolResult:
        return ToolResult(output="[image: image/png]", content=[{"type": "text", "text": "[image: image/png]"}, IMAGE])

    tool.execute = screenshot
    await harness.run("q", FakeProvider(call(("shot", {}, "c1")), say("seen")), [tool])
    assert harness.messages[2]["content"] == [{"type": "text", "text": "[image: image/png]"}, IMAGE]
    [post] = harness.data("tool:post")
    assert "iVBORw0KGgo=" not in str(post)
