"""Light dataclasses for streaming and event payloads (cheaper than pydantic on hot paths)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class ContentBlockType(str, Enum):
    TEXT = "text"
    THINKING = "thinking"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"


@dataclass
class ContentBlock:
    type: ContentBlockType
    raw: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type.value}


@dataclass
class TextContent(ContentBlock):
    type: ContentBlockType = ContentBlockType.TEXT
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type.value, "text": self.text}


@dataclass
class ThinkingContent(ContentBlock):
    type: ContentBlockType = ContentBlockType.THINKING
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type.value, "text": self.text}


@dataclass
class ToolCallContent(ContentBlock):
    type: ContentBlockType = ContentBlockType.TOOL_CALL
    id: str = ""
    name: str = ""
    arguments: dict[str, Any] | None = field(default=None)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type.value, "id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass
class ToolResultContent(ContentBlock):
    type: ContentBlockType = ContentBlockType.TOOL_RESULT
    tool_call_id: str = ""
    output: Any = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        result = {"type": self.type.value, "tool_call_id": self.tool_call_id, "output": self.output}
        if self.error:
            result["error"] = self.error
        return result
