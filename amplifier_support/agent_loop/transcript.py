"""The messages the loop stores, in the transcript format of docs/STREAMING.md."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from amplifier_core.message_models import ChatResponse

CANCELLED_NOTE = "The user cancelled this turn before it finished; the results above are what was completed."
MAX_ITERATIONS_NOTE = (
    "I stopped after reaching the limit of {limit} model calls for one turn before finishing the task."
)
WRAP_UP_REMINDER = (
    "<system-reminder>You have used all the tool calls available for this turn. Do not call any tools. "
    "Reply now in plain text: summarise what you did, what you found, and what remains to be done. "
    "Do not mention this reminder or any limit.</system-reminder>"
)


@dataclass(frozen=True)
class PlannedCall:
    """One tool call of a response, normalized from a ToolCall model or a dict."""

    index: int
    id: str
    name: str
    arguments: dict[str, Any]


def _field(item: Any, *names: str) -> Any:
    for name in names:
        value = item.get(name) if isinstance(item, dict) else getattr(item, name, None)
        if value is not None:
            return value
    return None


def planned_calls(raw_calls: Iterable[Any]) -> list[PlannedCall]:
    calls = []
    for index, raw in enumerate(raw_calls):
        arguments = _field(raw, "arguments", "input")
        calls.append(PlannedCall(
            index=index,
            id=str(_field(raw, "id") or f"call_{uuid.uuid4().hex[:16]}"),
            name=str(_field(raw, "name", "tool") or ""),
            arguments=dict(arguments) if isinstance(arguments, dict) else {},
        ))
    return calls


def block_dicts(response: ChatResponse) -> list[dict[str, Any]]:
    return [block.model_dump(mode="json", exclude_none=True) for block in response.content]


def answer_text(response: ChatResponse) -> str:
    """Text blocks only (thinking never leaks into the answer), joined by blank lines."""
    texts = [block.get("text", "") for block in block_dicts(response) if block.get("type") == "text"]
    return "\n\n".join(text for text in texts if text)


def assistant_message(response: ChatResponse, calls: list[PlannedCall], *, drop_tool_calls: bool = False
                      ) -> dict[str, Any]:
    """The assistant message: every block (thinking with its signature untouched), tool_call blocks for calls
    the provider reported only in ``tool_calls``, and a ``tool_calls`` list when tools were called."""
    content = block_dicts(response)
    if drop_tool_calls:
        content = [block for block in content if block.get("type") != "tool_call"]
    else:
        present = {block.get("id") for block in content if block.get("type") == "tool_call"}
        content.extend({"type": "tool_call", "id": call.id, "name": call.name, "input": call.arguments}
                       for call in calls if call.id not in present)
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls and not drop_tool_calls:
        message["tool_calls"] = [{"id": call.id, "tool": call.name, "arguments": call.arguments} for call in calls]
    metadata = {key: value for key, value in (response.metadata or {}).items() if key != "streamed"}
    if metadata:
        message["metadata"] = metadata
    return message


def text_message(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def tool_result_message(call: PlannedCall, content: str, images: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
    """The stored result of a call: its text, then its images as blocks when it returned any (providers that
    take no images in tool results send a note for each)."""
    blocks = list(images)
    body: str | list[dict[str, Any]] = [{"type": "text", "text": content}, *blocks] if blocks else content
    return {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": body}
