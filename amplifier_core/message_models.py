"""The request/response envelope between orchestrators and providers. ``extra="allow"`` everywhere so
provider-specific keys survive a round trip through the context and the transcript."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

Visibility = Literal["internal", "developer", "user"]


class _Block(BaseModel):
    """Shared config only: each block declares ``visibility`` itself, in 2.0.2's field order (it shows in dumps)."""

    model_config = ConfigDict(extra="allow")


class TextBlock(_Block):
    type: Literal["text"] = "text"
    text: str
    visibility: Visibility | None = None


class ThinkingBlock(_Block):
    """Model reasoning. ``signature`` must be sent back byte-for-byte; ``content`` carries OpenAI reasoning state."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str | None = None
    visibility: Visibility | None = None
    content: list[Any] | None = None


class RedactedThinkingBlock(_Block):
    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str
    visibility: Visibility | None = None


class ToolCallBlock(_Block):
    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    input: dict[str, Any]
    visibility: Visibility | None = None


class ToolResultBlock(_Block):
    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    output: Any
    visibility: Visibility | None = None


class ImageBlock(_Block):
    type: Literal["image"] = "image"
    source: dict[str, Any]
    visibility: Visibility | None = None


class ReasoningBlock(_Block):
    type: Literal["reasoning"] = "reasoning"
    content: list[Any]
    summary: list[Any]
    visibility: Visibility | None = None


ContentBlockUnion = Annotated[
    TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolCallBlock | ToolResultBlock | ImageBlock | ReasoningBlock,
    Field(discriminator="type"),
]


class Message(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["system", "developer", "user", "assistant", "function", "tool"]
    content: str | list[ContentBlockUnion]
    name: str | None = None
    tool_call_id: str | None = None
    metadata: dict[str, Any] | None = None


class ToolSpec(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    parameters: dict[str, Any]
    description: str | None = None


class ResponseFormatText(BaseModel):
    type: Literal["text"] = "text"


class ResponseFormatJson(BaseModel):
    type: Literal["json"] = "json"


class ResponseFormatJsonSchema(BaseModel):
    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)
    type: Literal["json_schema"] = "json_schema"
    json_schema: dict[str, Any] = Field(alias="schema")
    strict: bool | None = None


ResponseFormat = ResponseFormatText | ResponseFormatJson | ResponseFormatJsonSchema


class ChatRequest(BaseModel):
    """One call to a provider. ``stream=True`` asks a streaming-capable provider to emit deltas as hook events
    while it works (docs/STREAMING.md); the returned ChatResponse is complete either way."""

    model_config = ConfigDict(extra="allow")
    messages: list[Message]
    tools: list[ToolSpec] | None = None
    response_format: ResponseFormat | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = None
    conversation_id: str | None = None
    stream: bool | None = False
    metadata: dict[str, Any] | None = None
    model: str | None = None
    tool_choice: str | dict[str, Any] | None = None
    stop: list[str] | None = None
    reasoning_effort: str | None = None
    timeout: float | None = None


class ToolCall(BaseModel):
    model_config = ConfigDict(extra="allow")
    id: str
    name: str
    arguments: dict[str, Any]


def _reject_float(value: Any) -> Any:
    """Money is never a float: ``Decimal('0.047')``, an int or a string are accepted."""
    if isinstance(value, float):
        raise ValueError("cost_usd must be Decimal, not float. Use Decimal('0.047'): floats lose monetary precision.")
    return value


def _cost_as_text(value: Decimal | None) -> str | None:
    return str(value) if value is not None else None


class Usage(BaseModel):
    """Token counts. ``input_tokens`` is gross (fresh + cache reads); ``cost_usd=None`` means unknown, never 0."""

    model_config = ConfigDict(extra="allow")
    input_tokens: int
    output_tokens: int
    total_tokens: int
    reasoning_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    cost_usd: Decimal | None = None

    @field_validator("cost_usd", mode="before")
    @classmethod
    def reject_float_cost(cls, v: Any) -> Any:
        return _reject_float(v)

    @field_serializer("cost_usd", when_used="always")
    def serialize_cost_usd(self, v: Decimal | None) -> str | None:
        """A string on every dump path (plain and JSON): exact, and safe to put in an event."""
        return _cost_as_text(v)


class Degradation(BaseModel):
    model_config = ConfigDict(extra="allow")
    requested: str
    actual: str
    reason: str


class ChatResponse(BaseModel):
    model_config = ConfigDict(extra="allow")
    content: list[ContentBlockUnion]
    tool_calls: list[ToolCall] | None = None
    usage: Usage | None = None
    degradation: Degradation | None = None
    finish_reason: str | None = None
    metadata: dict[str, Any] | None = None


def response_text(response: ChatResponse) -> str:
    """The answer text of a response: text blocks only (never thinking), joined by blank lines. A function, not
    a ``ChatResponse.text`` property as 2.0.2 has none: upstream providers subclass ChatResponse with a ``text``
    field, which a property would shadow."""
    return "\n\n".join(block.text for block in response.content if isinstance(block, TextBlock))
