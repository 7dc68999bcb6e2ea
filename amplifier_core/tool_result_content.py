"""The boundary rich tool-result content (``ToolResult.content``) must pass, as 2.0.2 draws it.

Tools are untrusted: what they put in ``content`` reaches provider requests and hook events. Only text
blocks and base64 images with an ``image/*`` media type and strictly valid base64 data get through, and
each is rebuilt with only its known keys, so nothing a tool smuggles in extra keys survives.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from decimal import Decimal
from typing import Any

from pydantic import BaseModel

_MEDIA_TYPE = re.compile(r"image/[a-z0-9][a-z0-9.+-]*")
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
IMAGE_OMITTED_TEXT = "[Image omitted from tool event; original retained for model request if unmodified.]"


def _plain(value: Any) -> Any:
    """Round-trip through JSON: pydantic blocks become dicts, Decimals strings, tuples lists."""

    def default(item: Any) -> Any:
        if isinstance(item, BaseModel):
            return item.model_dump(exclude_none=True)
        if isinstance(item, Decimal):
            return str(item)
        raise TypeError(f"Object of type {type(item).__name__} is not JSON serializable")

    try:
        return json.loads(json.dumps(value, default=default))
    except (TypeError, ValueError) as error:
        raise ValueError("invalid tool result content") from error


def _valid_base64(data: Any) -> bool:
    if not isinstance(data, str) or not data or len(data) % 4 or not _BASE64.fullmatch(data):
        return False
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _normalize_block(block: Any) -> dict[str, Any]:
    if not isinstance(block, dict):
        raise ValueError("invalid tool result content")
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    if kind == "image":
        source = block.get("source")
        if not isinstance(source, dict) or source.get("type") != "base64":
            raise ValueError("invalid tool result image source")
        media_type = source.get("media_type")
        if not isinstance(media_type, str) or not _MEDIA_TYPE.fullmatch(media_type):
            raise ValueError("invalid tool result image media type")
        if not _valid_base64(source.get("data")):
            raise ValueError("invalid tool result image data")
        return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": source["data"]}}
    raise ValueError("invalid tool result content")


def normalize_tool_result_content(content: Any) -> list[dict[str, Any]] | None:
    """Canonical blocks for ``content``; None for None or an empty list; ValueError for anything else."""
    if content is None:
        return None
    plain = _plain(content)
    if not isinstance(plain, list):
        raise ValueError("invalid tool result content")
    blocks = [_normalize_block(block) for block in plain]
    return blocks or None


def hook_safe_content(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The blocks as hook events carry them: each image replaced by a text note, so events stay small."""
    return [block if block["type"] == "text" else {"type": "text", "text": IMAGE_OMITTED_TEXT} for block in blocks]
