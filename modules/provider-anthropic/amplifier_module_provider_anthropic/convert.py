"""Pure conversions between the kernel's messages/blocks and the Anthropic Messages wire format.

Nothing here does I/O or imports the SDK, so every rule is unit tested directly. The request side also
repairs the tool-call sequence: the repair is computed from the messages alone, so the same hole in the
context is repaired the same way on every later request (the context itself is never mutated).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from amplifier_core.message_models import (
    ChatResponse,
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
    Usage,
)

from .catalog import compute_cost

CACHE_CONTROL = {"type": "ephemeral"}
MAX_CACHE_BREAKPOINTS = 4
_CACHEABLE_TYPES = {"text", "image", "tool_use", "tool_result", "document"}
_INVALID_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_THINKING_TYPES = ("thinking", "redacted_thinking")


@dataclass(frozen=True)
class Repair:
    """A tool call that had no result; a synthetic error result was sent in its place."""

    tool_call_id: str
    tool_name: str


@dataclass
class WireConversation:
    system: str | None
    messages: list[dict[str, Any]]
    repairs: list[Repair] = field(default_factory=list)
    dropped_result_ids: list[str] = field(default_factory=list)


def synthetic_result_text(tool_name: str, tool_call_id: str) -> str:
    return (
        f"Tool call interrupted: no result was recorded for {tool_name} (call {tool_call_id}). "
        "The tool may or may not have run; check its effects before retrying."
    )


# -- request direction --------------------------------------------------------------------------------


def wire_tool_id(call_id: str) -> str:
    """A tool call id as Anthropic accepts it (``[A-Za-z0-9_-]+``). Ids written by another provider (an
    OpenAI-compatible server may answer ``functions.read_file:0``) get their other characters replaced and
    a short hash of the original appended, so distinct ids stay distinct and calls stay paired with results."""
    if call_id and not _INVALID_ID_CHARS.search(call_id):
        return call_id
    digest = hashlib.sha256(call_id.encode("utf-8")).hexdigest()[:8]
    return f"{_INVALID_ID_CHARS.sub('_', call_id) or 'toolu'}_{digest}"


def text_of(content: Any) -> str:
    """The text of a message's content: the string itself, or its text blocks joined by blank lines."""
    if isinstance(content, str):
        return content
    parts = [block.text for block in content or [] if isinstance(block, TextBlock)]
    return "\n\n".join(part for part in parts if part)


def system_prompt(messages: Iterable[Message]) -> str | None:
    """Every system message merged, in order, into one system prompt (blank-line separated)."""
    parts = [text_of(message.content).strip() for message in messages if message.role == "system"]
    parts = [part for part in parts if part]
    return "\n\n".join(parts) if parts else None


def image_source_to_wire(source: dict[str, Any]) -> dict[str, Any]:
    """Kernel image sources: ``{type: base64, media_type, data}``, ``{type: url, url}`` or untyped base64."""
    if source.get("type") in ("base64", "url", "file"):
        return dict(source)
    if "url" in source:
        return {"type": "url", "url": source["url"]}
    return {"type": "base64", "media_type": source.get("media_type", "image/png"), "data": source.get("data", "")}


def block_to_wire(block: Any) -> dict[str, Any] | None:
    """One kernel content block as an Anthropic block; None for blocks Anthropic cannot take back.

    Thinking is sent back byte-for-byte with its signature; unsigned thinking (another provider's
    reasoning) and OpenAI reasoning items are dropped because the API would reject them.
    """
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text} if block.text.strip() else None
    if isinstance(block, ThinkingBlock):
        if not block.signature:
            return None
        return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
    if isinstance(block, RedactedThinkingBlock):
        return {"type": "redacted_thinking", "data": block.data}
    if isinstance(block, ToolCallBlock):
        return {"type": "tool_use", "id": wire_tool_id(block.id), "name": block.name, "input": dict(block.input)}
    if isinstance(block, ImageBlock):
        return {"type": "image", "source": image_source_to_wire(block.source)}
    if isinstance(block, ToolResultBlock):
        return tool_result_to_wire(block.tool_call_id, block.output)
    return None


def tool_result_content(output: Any) -> str | list[dict[str, Any]]:
    """A tool result's content: text stays text; a list of kernel blocks keeps its text and images."""
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        blocks = []
        for item in output:
            try:
                block = Message.model_validate({"role": "user", "content": [item]}).content[0]
            except Exception:
                block = None
            wire = block_to_wire(block) if isinstance(block, (TextBlock, ImageBlock)) else None
            if wire is not None:
                blocks.append(wire)
        if blocks:
            return blocks
    if output is None:
        return ""
    return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)


def tool_result_to_wire(tool_call_id: str, output: Any, *, is_error: bool = False) -> dict[str, Any]:
    """A tool_result block; an empty output is sent without ``content`` (the API rejects empty text)."""
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": wire_tool_id(tool_call_id)}
    content = tool_result_content(output)
    if content != "":
        block["content"] = content
    if is_error:
        block["is_error"] = True
    return block


def _extra(message: Message, key: str) -> Any:
    return (message.model_extra or {}).get(key)


def assistant_tool_calls(message: Message) -> list[tuple[str, str, dict[str, Any]]]:
    """(id, name, arguments) of every call in an assistant message: its tool_call blocks, then any
    ``tool_calls`` entries (``{id, tool|name, arguments|input}``) not already present as blocks."""
    calls: list[tuple[str, str, dict[str, Any]]] = []
    seen: set[str] = set()
    if isinstance(message.content, list):
        for block in message.content:
            if isinstance(block, ToolCallBlock) and block.id not in seen:
                calls.append((block.id, block.name, dict(block.input)))
                seen.add(block.id)
    for entry in _extra(message, "tool_calls") or []:
        data = entry.model_dump() if hasattr(entry, "model_dump") else entry
        if not isinstance(data, dict) or not data.get("id") or data["id"] in seen:
            continue
        name = data.get("tool") or data.get("name") or "unknown_tool"
        arguments = data.get("arguments", data.get("input")) or {}
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = {"raw_arguments": arguments}
        calls.append((str(data["id"]), str(name), dict(arguments) if isinstance(arguments, dict) else {}))
        seen.add(str(data["id"]))
    return calls


def assistant_blocks(message: Message) -> list[dict[str, Any]]:
    """An assistant message's wire blocks in their original order, plus tool_use blocks for calls that
    exist only in ``tool_calls``. A legacy ``thinking_block`` key is used when content has no thinking."""
    blocks: list[dict[str, Any]] = []
    if isinstance(message.content, str):
        if message.content.strip():
            blocks.append({"type": "text", "text": message.content})
    else:
        for block in message.content:
            wire = block_to_wire(block)
            if wire is not None and wire["type"] != "tool_result":
                blocks.append(wire)
    legacy = _extra(message, "thinking_block")
    if isinstance(legacy, dict) and not any(b["type"] in ("thinking", "redacted_thinking") for b in blocks):
        if legacy.get("signature") and legacy.get("thinking") is not None:
            blocks.insert(0, {"type": "thinking", "thinking": legacy["thinking"], "signature": legacy["signature"]})
    present = {b["id"] for b in blocks if b["type"] == "tool_use"}
    for call_id, name, arguments in assistant_tool_calls(message):
        if wire_tool_id(call_id) not in present:
            blocks.append({"type": "tool_use", "id": wire_tool_id(call_id), "name": name, "input": arguments})
    return blocks


def user_blocks(message: Message) -> list[dict[str, Any]]:
    """A user (or developer) message's wire blocks; tool results are placed separately."""
    if isinstance(message.content, str):
        return [{"type": "text", "text": message.content}] if message.content.strip() else []
    blocks = []
    for block in message.content:
        if isinstance(block, (ToolResultBlock, ToolCallBlock, ThinkingBlock, RedactedThinkingBlock)):
            continue
        wire = block_to_wire(block)
        if wire is not None:
            blocks.append(wire)
    return blocks


def _append_turn(wire: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    """Add blocks as a turn of ``role``, merging into the previous turn when it has the same role."""
    if not blocks:
        return
    if wire and wire[-1]["role"] == role:
        wire[-1]["content"].extend(blocks)
    else:
        wire.append({"role": role, "content": list(blocks)})


def _results_in(message: Message) -> list[tuple[str, Any]]:
    """(tool_call_id, output) of the tool results a message carries."""
    if message.role in ("tool", "function"):
        if message.tool_call_id:
            return [(message.tool_call_id, message.content if isinstance(message.content, str)
                     else [b.model_dump(exclude_none=True) for b in message.content])]
        return []
    if message.role == "user" and isinstance(message.content, list):
        return [(b.tool_call_id, b.output) for b in message.content if isinstance(b, ToolResultBlock)]
    return []


def messages_to_wire(messages: list[Message]) -> WireConversation:
    """Kernel messages -> (system prompt, alternating wire turns), repairing the tool-call sequence.

    Each assistant turn with tool calls is followed by one user turn that starts with a tool_result for
    every call, in call order: the first result recorded for that id anywhere after the call, or a
    synthetic error result when there is none. Results with no earlier call, and duplicates, are dropped.
    Other user content of the same stretch follows the results in that turn.
    """
    conversation = [m for m in messages if m.role != "system"]
    owner: dict[str, int] = {}
    for index, message in enumerate(conversation):
        if message.role == "assistant":
            for call_id, _, _ in assistant_tool_calls(message):
                owner.setdefault(call_id, index)
    results: dict[str, Any] = {}
    dropped: list[str] = []
    for index, message in enumerate(conversation):
        for call_id, output in _results_in(message):
            if call_id in owner and owner[call_id] < index and call_id not in results:
                results[call_id] = output
            else:
                dropped.append(call_id)

    wire: list[dict[str, Any]] = []
    repairs: list[Repair] = []
    for index, message in enumerate(conversation):
        if message.role == "assistant":
            calls = [call for call in assistant_tool_calls(message) if owner.get(call[0]) == index]
            _append_turn(wire, "assistant", assistant_blocks(message))
            result_blocks = []
            for call_id, name, _ in calls:
                if call_id in results:
                    result_blocks.append(tool_result_to_wire(call_id, results[call_id]))
                else:
                    repairs.append(Repair(call_id, name))
                    result_blocks.append(
                        tool_result_to_wire(call_id, synthetic_result_text(name, call_id), is_error=True)
                    )
            _append_turn(wire, "user", result_blocks)
        elif message.role in ("user", "developer"):
            _append_turn(wire, "user", user_blocks(message))
    return WireConversation(system_prompt(messages), wire, repairs, dropped)


def final_tool_turn_lacks_thinking(wire: list[dict[str, Any]]) -> bool:
    """Whether the last assistant turn calls tools without starting with a thinking block. With thinking on,
    the API rejects such a request (400), so it has to go without thinking: this happens when the turn was
    written by another provider or while thinking was off."""
    for message in reversed(wire):
        if message["role"] != "assistant":
            continue
        blocks = message["content"]
        calls_tools = any(block.get("type") == "tool_use" for block in blocks)
        return calls_tools and blocks[0].get("type") not in _THINKING_TYPES
    return False


def tools_to_wire(tools: Iterable[ToolSpec] | None) -> list[dict[str, Any]]:
    """Tool specs as Anthropic tool definitions; a spec carrying a native ``type`` passes through as is."""
    wire = []
    for tool in tools or []:
        extra = tool.model_extra or {}
        if extra.get("type") and extra["type"] != "function":
            wire.append({"name": tool.name, **{k: v for k, v in extra.items() if k != "native_tool_spec"}})
            continue
        definition: dict[str, Any] = {"name": tool.name, "input_schema": tool.parameters or {"type": "object"}}
        if tool.description:
            definition["description"] = tool.description
        wire.append(definition)
    return wire


def tool_choice_to_wire(choice: str | dict[str, Any] | None) -> dict[str, Any] | None:
    if choice is None:
        return None
    if isinstance(choice, dict):
        if choice.get("type") in ("auto", "any", "none", "tool"):
            return dict(choice)
        name = choice.get("name") or (choice.get("function") or {}).get("name")
        return {"type": "tool", "name": name} if name else None
    mapping = {"auto": "auto", "any": "any", "required": "any", "none": "none"}
    if choice in mapping:
        return {"type": mapping[choice]}
    return {"type": "tool", "name": choice}


def _mark_last_cacheable(blocks: list[dict[str, Any]]) -> bool:
    for position in range(len(blocks) - 1, -1, -1):
        block = blocks[position]
        if block.get("type") in _CACHEABLE_TYPES and not (block.get("type") == "text" and not block.get("text")):
            blocks[position] = {**block, "cache_control": dict(CACHE_CONTROL)}
            return True
    return False


def add_cache_breakpoints(
    system: str | None, tools: list[dict[str, Any]], messages: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]], list[dict[str, Any]]]:
    """Prompt-caching breakpoints on the stable prefix, at most four: end of the system prompt, the last
    tool definition, the last message, and the previous user turn (so this request reads what the last
    one wrote). Returns new (system blocks, tools, messages); the inputs are not modified."""
    budget = MAX_CACHE_BREAKPOINTS
    system_blocks = None
    if system:
        system_blocks = [{"type": "text", "text": system, "cache_control": dict(CACHE_CONTROL)}]
        budget -= 1
    tools = list(tools)
    if tools and budget:
        tools[-1] = {**tools[-1], "cache_control": dict(CACHE_CONTROL)}
        budget -= 1
    messages = [dict(message) for message in messages]
    user_positions = [i for i, message in enumerate(messages) if message["role"] == "user"]
    targets = []
    if messages:
        targets.append(len(messages) - 1)
    earlier_users = [i for i in user_positions if i < len(messages) - 1]
    if earlier_users:
        targets.append(earlier_users[-1])
    for position in targets:
        if not budget:
            break
        content = list(messages[position]["content"])
        if _mark_last_cacheable(content):
            messages[position]["content"] = content
            budget -= 1
    return system_blocks, tools, messages


# -- response direction -------------------------------------------------------------------------------


def block_from_wire(block: dict[str, Any]) -> TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolCallBlock | None:
    """One Anthropic response block as a kernel block; None for server-side block types we do not model."""
    kind = block.get("type")
    if kind == "text":
        return TextBlock(text=block.get("text") or "")
    if kind == "thinking":
        return ThinkingBlock(thinking=block.get("thinking") or "", signature=block.get("signature"))
    if kind == "redacted_thinking":
        return RedactedThinkingBlock(data=block.get("data") or "")
    if kind == "tool_use":
        arguments = block.get("input")
        return ToolCallBlock(id=block["id"], name=block["name"], input=arguments if isinstance(arguments, dict) else {})
    return None


def usage_from_wire(usage: dict[str, Any] | None, model: str) -> Usage:
    """Anthropic usage -> kernel Usage: input gross of cache reads; cache writes separate; cost when known."""
    usage = usage or {}
    fresh = int(usage.get("input_tokens") or 0)
    output = int(usage.get("output_tokens") or 0)
    cache_read = int(usage.get("cache_read_input_tokens") or 0)
    cache_write = int(usage.get("cache_creation_input_tokens") or 0)
    return Usage(
        input_tokens=fresh + cache_read,
        output_tokens=output,
        total_tokens=fresh + cache_read + cache_write + output,
        cache_read_tokens=cache_read if "cache_read_input_tokens" in usage else None,
        cache_write_tokens=cache_write if "cache_creation_input_tokens" in usage else None,
        cost_usd=compute_cost(model, fresh_input=fresh, output=output, cache_read=cache_read, cache_write=cache_write),
    )


def chat_response_from_wire(message: dict[str, Any], *, model: str, streamed: bool) -> ChatResponse:
    """A complete Anthropic ``Message`` (as a dict) -> ChatResponse with blocks, tool calls and usage."""
    blocks = [block for block in (block_from_wire(b) for b in message.get("content") or []) if block is not None]
    calls = [ToolCall(id=b.id, name=b.name, arguments=b.input) for b in blocks if isinstance(b, ToolCallBlock)]
    priced_model = str(message.get("model") or model)
    metadata: dict[str, Any] = {"streamed": streamed, "model": priced_model}
    if message.get("id"):
        metadata["anthropic:message_id"] = message["id"]
    return ChatResponse(
        content=blocks,
        tool_calls=calls or None,
        usage=usage_from_wire(message.get("usage"), priced_model),
        finish_reason=message.get("stop_reason"),
        metadata=metadata,
    )
