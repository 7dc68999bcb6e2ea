"""Keeping a request under the size a provider accepts when the conversation holds many images.

Every image stays in the conversation (and the transcript), but each request repeats them all, so a session that
attached a few large screenshots a turn soon sends more than a provider takes (Anthropic refuses a request over
32 MB). ``fit_images`` keeps the images of the current turn and, newest first, as many earlier ones as fit in
``IMAGE_BYTES_BUDGET``; the others are described in one line each. ``oversize_problem`` then says, before the
request is sent, when it would still be too large (a turn that attached too much at once).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from amplifier_core.message_models import ImageBlock, Message, TextBlock

MAX_REQUEST_BYTES = 32_000_000  # Anthropic's request limit, the smaller of the two providers'
IMAGE_BYTES_BUDGET = 24 * 1024 * 1024  # base64 bytes of images one request carries, room left for the text
MAX_REQUEST_IMAGES = 100  # Anthropic's images per request


def _image_bytes(block: ImageBlock) -> int:
    source = block.source if isinstance(block.source, dict) else {}
    data = source.get("data") if source.get("type", "base64") == "base64" else source.get("url")
    return len(data) if isinstance(data, str) else 0


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


def _described(block: ImageBlock) -> TextBlock:
    source = block.source if isinstance(block.source, dict) else {}
    media_type = source.get("media_type") or "image"
    return TextBlock(text=f"[an earlier image ({media_type}, {_megabytes(_image_bytes(block))} encoded) is left "
                          "out of this request to keep it under the provider's size limit; ask the user to attach "
                          "it again if it is still needed]")


def _current_turn_start(messages: Sequence[Message]) -> int:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return index
    return len(messages)


def fit_images(messages: list[Message]) -> tuple[list[Message], int]:
    """``messages`` with the earlier images that do not fit described instead; returns (messages, how many).
    The list is returned as it is (no copy) when every image fits."""
    places = [(index, position, block) for index, message in enumerate(messages) if isinstance(message.content, list)
              for position, block in enumerate(message.content) if isinstance(block, ImageBlock)]
    if not places:
        return messages, 0
    current = _current_turn_start(messages)
    used = sum(_image_bytes(block) for index, _, block in places if index >= current)
    count = sum(1 for index, _, _ in places if index >= current)
    dropped: dict[int, set[int]] = {}
    for index, position, block in reversed([place for place in places if place[0] < current]):
        size = _image_bytes(block)
        if used + size <= IMAGE_BYTES_BUDGET and count < MAX_REQUEST_IMAGES:
            used += size
            count += 1
        else:
            dropped.setdefault(index, set()).add(position)
    if not dropped:
        return messages, 0
    fitted = list(messages)
    for index, positions in dropped.items():
        content = messages[index].content
        assert isinstance(content, list)
        blocks = [_described(block) if position in positions else block  # type: ignore[arg-type]
                  for position, block in enumerate(content)]
        fitted[index] = messages[index].model_copy(update={"content": blocks})
    return fitted, sum(len(positions) for positions in dropped.values())


def _block_size(block: Any) -> int:
    if isinstance(block, ImageBlock):
        return _image_bytes(block)
    for name in ("text", "thinking", "output"):
        value = getattr(block, name, None)
        if isinstance(value, str):
            return len(value)
    value = getattr(block, "input", None)
    return len(str(value)) if value is not None else 0


def request_size(messages: Sequence[Message]) -> int:
    """About the bytes the messages take on the wire: text and encoded images (JSON framing left out)."""
    total = 0
    for message in messages:
        content = message.content
        total += len(content) if isinstance(content, str) else sum(_block_size(block) for block in content)
    return total


def oversize_problem(messages: Sequence[Message]) -> str | None:
    """Why the request must not be sent (what a user can do about it), or None when it fits."""
    size = request_size(messages)
    if size <= MAX_REQUEST_BYTES:
        return None
    return (f"the request would be about {_megabytes(size)}, more than the {_megabytes(MAX_REQUEST_BYTES)} a "
            "provider accepts, so it was not sent; attach fewer or smaller images, or start a new session "
            "(`/clear` or `/compact` in the chat)")
