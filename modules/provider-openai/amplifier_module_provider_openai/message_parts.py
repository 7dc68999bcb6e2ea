"""Small readers of kernel message content shared by the Responses and Chat converters."""

from __future__ import annotations

import json
from typing import Any

from amplifier_core.message_models import ImageBlock, Message, TextBlock, ToolResultBlock


def image_url(block: ImageBlock) -> str | None:
    """An ImageBlock's source as a URL the OpenAI APIs accept (https URL or base64 data URL)."""
    source = block.source or {}
    if source.get("type") == "base64" or ("data" in source and "url" not in source):
        media_type = source.get("media_type") or "image/png"
        data = source.get("data")
        return f"data:{media_type};base64,{data}" if data else None
    url = source.get("url")
    return str(url) if url else None


def output_text(value: Any) -> str:
    """A tool output as the text the model reads: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(item, (TextBlock, ImageBlock, dict)) for item in value):
        texts = [item.text if isinstance(item, TextBlock) else _image_note(item) if isinstance(item, ImageBlock)
                 else item.get("text") for item in value]
        if all(isinstance(text, str) for text in texts):
            return "\n".join(texts)  # type: ignore[arg-type]
    return json.dumps(value, default=str, ensure_ascii=False)


def _image_note(block: ImageBlock) -> str:
    """An image a tool returned. Neither OpenAI API takes images in a tool result (function_call_output and
    chat tool messages are text), so the model reads this note instead; Anthropic gets the image itself."""
    return f"[image: {block.source.get('media_type', 'image')}, not shown: tool results here carry no images]"


def tool_output(message: Message) -> str:
    """The text of a tool-result message as the model reads it (see ``output_text``)."""
    return message.content if isinstance(message.content, str) else output_text(message.content)


def message_text(message: Message) -> str:
    """All text of a message (non-empty text blocks joined by blank lines; other blocks ignored)."""
    if isinstance(message.content, str):
        return message.content
    return "\n\n".join(block.text for block in message.content if isinstance(block, TextBlock) and block.text)


def tool_result_blocks(message: Message) -> list[ToolResultBlock]:
    if isinstance(message.content, str):
        return []
    return [block for block in message.content if isinstance(block, ToolResultBlock)]
