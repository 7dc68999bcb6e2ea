"""`@pic.png` in the chat: the image goes to the model as an Anthropic image block after the prompt's text."""

from __future__ import annotations

import base64
from pathlib import Path

from fakeapi import Turn

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(17)


def test_an_at_mentioned_image_reaches_the_model_as_an_image_block(spawn_chat, fake_api, chat_project: Path) -> None:
    (chat_project / "pic.png").write_bytes(PNG)
    fake_api.add(Turn(text="a-tiny-picture"), when_last_user_contains="what is in")
    chat = spawn_chat()
    chat.ready()
    chat.send_line("what is in @pic.png")
    assert "attached " in chat.expect("a-tiny-picture")
    chat.prompt()
    assert chat.exit() == 0
    [user] = [message for message in fake_api.requests[-1].body["messages"] if message["role"] == "user"]
    assert user["content"][0] == {"type": "text", "text": "what is in @pic.png"}
    assert user["content"][1]["type"] == "image"
    assert user["content"][1]["source"] == {"type": "base64", "media_type": "image/png",
                                            "data": base64.b64encode(PNG).decode()}
