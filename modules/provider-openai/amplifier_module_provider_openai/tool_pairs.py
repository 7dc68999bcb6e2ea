"""Tool call / tool result pairing for the kernel transcript, shared by both OpenAI APIs.

Both APIs reject a conversation in which a tool call has no result, or a result answers no call. A turn that
was interrupted (Ctrl-C, a crash, a cut stream) can leave either behind, so every request is repaired here
before conversion. The repair is a pure function of the messages: the stored context is never changed, and
the same history is repaired the same way on every later request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from amplifier_core.message_models import Message, ToolCallBlock, ToolResultBlock

from .message_parts import output_text

INTERRUPTED_RESULT = (
    "Tool result missing: the call to {name} (id {call_id}) was interrupted before it returned a result, "
    "so it may or may not have taken effect. Check its effect before relying on it, or call it again."
)


@dataclass(frozen=True)
class AssistantCall:
    """A tool call made by an assistant message, whichever way the transcript recorded it."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Repair:
    tool_call_id: str
    tool_name: str


@dataclass
class RepairedMessages:
    messages: list[Message]
    repairs: list[Repair] = field(default_factory=list)
    dropped_result_ids: list[str] = field(default_factory=list)


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip():
        try:
            parsed = json.loads(value)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


def assistant_calls(message: Message) -> list[AssistantCall]:
    """The tool calls of an assistant message: its tool_call blocks, then any ``tool_calls`` entries
    (orchestrators write ``{id, tool, arguments}``; ``name``/``input`` are accepted too) not already seen."""
    if message.role != "assistant":
        return []
    calls: list[AssistantCall] = []
    seen: set[str] = set()
    if isinstance(message.content, list):
        for block in message.content:
            if isinstance(block, ToolCallBlock) and block.id not in seen:
                seen.add(block.id)
                calls.append(AssistantCall(block.id, block.name, dict(block.input)))
    for entry in getattr(message, "tool_calls", None) or []:
        if not isinstance(entry, dict):
            entry = getattr(entry, "model_dump", lambda: {})()
        call_id = entry.get("id")
        name = entry.get("tool") or entry.get("name")
        if not call_id or not name or call_id in seen:
            continue
        seen.add(call_id)
        calls.append(AssistantCall(str(call_id), str(name), _arguments(entry.get("arguments", entry.get("input")))))
    return calls


def interrupted_result(call: AssistantCall) -> Message:
    return Message(role="tool", tool_call_id=call.id, name=call.name,
                   content=INTERRUPTED_RESULT.format(name=call.name, call_id=call.id))


def split_result_blocks(messages: list[Message]) -> list[Message]:
    """Turn tool_result blocks inside user messages into tool messages (placed first), so the rest of the
    pipeline sees one shape for tool results."""
    split: list[Message] = []
    for message in messages:
        if message.role != "user" or isinstance(message.content, str):
            split.append(message)
            continue
        results = [block for block in message.content if isinstance(block, ToolResultBlock)]
        if not results:
            split.append(message)
            continue
        for block in results:
            split.append(Message(role="tool", tool_call_id=block.tool_call_id, content=output_text(block.output)))
        rest = [block for block in message.content if not isinstance(block, ToolResultBlock)]
        if rest:
            split.append(message.model_copy(update={"content": rest}))
    return split


def repair_tool_pairs(messages: list[Message]) -> RepairedMessages:
    """Give every tool call exactly one result placed in the run of tool messages right after its assistant
    message (a synthetic "interrupted" result when none exists), and drop results that answer no earlier
    call or repeat an answered one."""
    output: list[Message] = []
    result = RepairedMessages(output)
    known_calls: set[str] = set()
    delivered: set[str] = set()
    pending: list[AssistantCall] = []

    def flush_pending() -> None:
        for call in pending:
            if call.id not in delivered:
                output.append(interrupted_result(call))
                delivered.add(call.id)
                result.repairs.append(Repair(call.id, call.name))
        pending.clear()

    for message in split_result_blocks(messages):
        if message.role in ("tool", "function"):
            call_id = message.tool_call_id
            if not call_id or call_id not in known_calls or call_id in delivered:
                result.dropped_result_ids.append(call_id or "")
                continue
            if pending and any(call.id == call_id for call in pending):
                output.append(message)
                delivered.add(call_id)
                continue
            # A late result, separated from its call by other messages: the call already got a synthetic
            # result (or will), so this one cannot be placed without breaking the order the API requires.
            result.dropped_result_ids.append(call_id)
            continue
        flush_pending()
        output.append(message)
        calls = assistant_calls(message)
        for call in calls:
            known_calls.add(call.id)
        pending.extend(call for call in calls if call.id not in delivered)
    flush_pending()
    return result
