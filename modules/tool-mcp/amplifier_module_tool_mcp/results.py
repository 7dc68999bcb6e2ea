"""MCP results -> ``ToolResult``: text as text, structured content as JSON when there is no text, embedded
resources by their text, errors as failures. Long results are cut with a note saying how much was left out.

Images: a PNG, JPEG, GIF or WebP image within the size limit (amplifier_support.images) goes to the model as
an image block in the result's ``content`` (the text keeps a one-line note of it, for logs and for providers
that take no images in tool results); any other image, and audio, is only that note."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from amplifier_core import ToolResult
from amplifier_support.images import MAX_IMAGE_BYTES, sniff_media_type


def cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n\n[result cut: {len(text) - limit} of {len(text)} characters left out]"


def _binary_note(kind: str, mime_type: str | None, data: str | None) -> str:
    try:
        size = len(base64.b64decode(data or "", validate=False))
    except ValueError:
        size = len(data or "")
    return f"[{kind}: {mime_type or 'unknown type'}, {size} bytes, not shown]"


def content_text(block: Any) -> str:
    """One content block as text."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return block.text
    if kind == "image":
        shown = "attached" if sendable_image(block) else "not shown"
        return _binary_note("image", block.mime_type, block.data).replace("not shown", shown)
    if kind == "audio":
        return _binary_note("audio", block.mime_type, block.data)
    if kind == "resource":
        return resource_contents_text(block.resource)
    if kind == "resource_link":
        described = f" - {block.description}" if getattr(block, "description", None) else ""
        return f"[resource {block.uri} ({block.name}){described}; read it with mcp_read_resource]"
    return json.dumps(block.model_dump(mode="json", exclude_none=True), ensure_ascii=False)


def resource_contents_text(contents: Any) -> str:
    text = getattr(contents, "text", None)
    if text is not None:
        return text
    return _binary_note(f"blob {contents.uri}", getattr(contents, "mime_type", None), getattr(contents, "blob", ""))


def resource_contents_parts(contents: Any) -> tuple[str, dict[str, Any] | None]:
    """A resource's contents as text, and as an ImageBlock when it is an image a model can take."""
    blob = getattr(contents, "blob", None)
    if getattr(contents, "text", None) is None and isinstance(blob, str):
        image = sendable_image(_BlobAsImage(blob, getattr(contents, "mime_type", None)))
        if image is not None:
            return f"[image {contents.uri}: {image['source']['media_type']}, attached]", image
    return resource_contents_text(contents), None


@dataclass
class _BlobAsImage:
    data: str
    mime_type: str | None
    type: str = "image"


def sendable_image(block: Any) -> dict[str, Any] | None:
    """The ImageBlock for an MCP image a model can take (type by its bytes, within the limit), else None."""
    if getattr(block, "type", None) != "image" or not isinstance(getattr(block, "data", None), str):
        return None
    try:
        data = base64.b64decode(block.data, validate=True)
    except ValueError:
        return None
    media_type = sniff_media_type(data)
    if media_type is None or len(data) > MAX_IMAGE_BYTES:
        return None
    return {"type": "image", "source": {"type": "base64", "media_type": media_type,
                                        "data": base64.b64encode(data).decode("ascii")}}


def call_result_to_tool_result(result: Any, limit: int) -> ToolResult:
    """A ``CallToolResult`` as the model should read it."""
    images = [image for image in (sendable_image(block) for block in result.content or []) if image]
    parts = [content_text(block) for block in result.content or []]
    text = "\n".join(part for part in parts if part)
    structured = getattr(result, "structured_content", None)
    if structured is not None and not text:
        text = json.dumps(structured, ensure_ascii=False, indent=2)
    text = cut(text, limit)
    if result.is_error:
        return ToolResult(success=False, output=text or "the tool reported an error",
                          error={"message": text or "the tool reported an error"})
    return ToolResult(success=True, output=text, content=[{"type": "text", "text": text}, *images] if images else None)
