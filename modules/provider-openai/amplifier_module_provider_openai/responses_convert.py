"""Kernel messages <-> OpenAI Responses API (pure functions, no SDK).

Requests are stateless (``store=False``): the whole conversation is sent every time, and reasoning is
carried across turns as reasoning items rebuilt from ThinkingBlocks whose ``content`` is
``[encrypted_content, reasoning_id]``, kept byte-for-byte from the response that produced them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from amplifier_core.message_models import (
    ChatResponse,
    ImageBlock,
    Message,
    ReasoningBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolCallBlock,
    ToolSpec,
    Usage,
)

from .message_parts import image_url, message_text, tool_output
from .shared_wire import function_definition, named_json_schema, parse_arguments, tool_choice_keyword, usage_from_counts
from .tool_pairs import assistant_calls


@dataclass
class ResponsesInput:
    instructions: str | None
    items: list[dict[str, Any]] = field(default_factory=list)

    @property
    def carries_reasoning(self) -> bool:
        return any(item.get("type") == "reasoning" for item in self.items)


# -- request ------------------------------------------------------------------------------------------


def _summary_texts(summary: list[Any]) -> list[str]:
    texts = []
    for part in summary or []:
        text = part.get("text") if isinstance(part, dict) else part
        if isinstance(text, str) and text:
            texts.append(text)
    return texts


def reasoning_item(encrypted: Any, reasoning_id: Any, summaries: list[str]) -> dict[str, Any] | None:
    """A reasoning input item, or None when it cannot be sent statelessly (no id or no encrypted content)."""
    if not isinstance(reasoning_id, str) or not reasoning_id or not isinstance(encrypted, str) or not encrypted:
        return None
    return {
        "type": "reasoning",
        "id": reasoning_id,
        "summary": [{"type": "summary_text", "text": text} for text in summaries],
        "encrypted_content": encrypted,
    }


def _reasoning_from_block(block: ThinkingBlock | ReasoningBlock) -> dict[str, Any] | None:
    state = list(block.content or [])
    encrypted = state[0] if len(state) > 0 else None
    reasoning_id = state[1] if len(state) > 1 else None
    if isinstance(block, ThinkingBlock):
        summaries = [block.thinking] if block.thinking else []
    else:
        summaries = _summary_texts(block.summary)
    return reasoning_item(encrypted, reasoning_id, summaries)


def function_call_item(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": name,
            "arguments": json.dumps(arguments, ensure_ascii=False)}


def _user_item(message: Message) -> dict[str, Any] | None:
    if isinstance(message.content, str):
        return {"role": "user", "content": message.content}
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append({"type": "input_text", "text": block.text})
        elif isinstance(block, ImageBlock):
            url = image_url(block)
            if url:
                parts.append({"type": "input_image", "image_url": url, "detail": "auto"})
    return {"role": "user", "content": parts} if parts else None


def _assistant_items(message: Message) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    texts: list[str] = []

    def flush_text() -> None:
        if texts:
            items.append({"role": "assistant", "content": "\n\n".join(texts)})
            texts.clear()

    emitted_calls: set[str] = set()
    blocks = [TextBlock(text=message.content)] if isinstance(message.content, str) else message.content
    for block in blocks:
        if isinstance(block, TextBlock):
            if block.text:
                texts.append(block.text)
        elif isinstance(block, (ThinkingBlock, ReasoningBlock)):
            item = _reasoning_from_block(block)
            if item is not None:
                flush_text()
                items.append(item)
        elif isinstance(block, ToolCallBlock):
            flush_text()
            emitted_calls.add(block.id)
            items.append(function_call_item(block.id, block.name, dict(block.input)))
        # redacted_thinking (Anthropic-only) and images in assistant turns have no Responses equivalent.
    flush_text()
    for call in assistant_calls(message):
        if call.id not in emitted_calls:
            items.append(function_call_item(call.id, call.name, call.arguments))
    # The API rejects a reasoning item that is not followed by the output it led to (a turn cut short).
    while items and items[-1].get("type") == "reasoning":
        items.pop()
    return items


def messages_to_responses(messages: list[Message]) -> ResponsesInput:
    """Convert a repaired conversation: system/developer text -> ``instructions``, the rest -> input items."""
    instructions: list[str] = []
    items: list[dict[str, Any]] = []
    for message in messages:
        if message.role in ("system", "developer"):
            text = message_text(message)
            if text:
                instructions.append(text)
        elif message.role == "user":
            item = _user_item(message)
            if item is not None:
                items.append(item)
        elif message.role == "assistant":
            items.extend(_assistant_items(message))
        elif message.role in ("tool", "function"):
            items.append({"type": "function_call_output", "call_id": message.tool_call_id,
                          "output": tool_output(message)})
    return ResponsesInput("\n\n".join(instructions) or None, items)


def tools_to_responses(tools: list[ToolSpec] | None) -> list[dict[str, Any]]:
    """Function tools in the Responses shape (flat: name/description/parameters at the top level)."""
    return [{"type": "function", **function_definition(tool)} for tool in tools or []]


def tool_choice_to_responses(choice: str | dict[str, Any] | None) -> Any:
    if choice is None:
        return None
    if isinstance(choice, str):
        return tool_choice_keyword(choice) or {"type": "function", "name": choice}
    if choice.get("type") in ("tool", "function") and choice.get("name"):
        return {"type": "function", "name": choice["name"]}
    return choice


def response_format_to_responses(response_format: Any) -> dict[str, Any] | None:
    """ChatRequest.response_format as the Responses ``text.format`` value (None for plain text)."""
    kind = getattr(response_format, "type", None)
    if kind == "json":
        return {"type": "json_object"}
    if kind == "json_schema":
        return {"type": "json_schema", **named_json_schema(response_format)}
    return None


# -- response -----------------------------------------------------------------------------------------


def block_from_item(item: dict[str, Any]) -> ThinkingBlock | TextBlock | ToolCallBlock | None:
    """One output item as a kernel block (None for item types the kernel has no block for)."""
    kind = item.get("type")
    if kind == "reasoning":
        summaries = _summary_texts(item.get("summary") or [])
        if not summaries:  # open-weight models (gpt-oss on vLLM) return raw reasoning text instead
            summaries = _summary_texts(item.get("content") or [])
        return ThinkingBlock(thinking="\n\n".join(summaries), content=[item.get("encrypted_content"), item.get("id")],
                             visibility="internal")
    if kind == "message":
        texts = []
        for part in item.get("content") or []:
            if part.get("type") == "output_text":
                texts.append(part.get("text") or "")
            elif part.get("type") == "refusal":
                texts.append(part.get("refusal") or "")
        return TextBlock(text="".join(texts))
    if kind == "function_call":
        name = str(item.get("name") or "")
        return ToolCallBlock(id=str(item.get("call_id") or item.get("id") or ""), name=name,
                             input=parse_arguments(item.get("arguments"), tool_name=name))
    return None


def usage_from_responses(usage: dict[str, Any] | None) -> Usage | None:
    """Responses usage: input_tokens already includes cached tokens (gross), as the kernel wants."""
    if not usage:
        return None
    return usage_from_counts(usage.get("input_tokens"), usage.get("output_tokens"), usage.get("total_tokens"),
                             cached=(usage.get("input_tokens_details") or {}).get("cached_tokens"),
                             reasoning=(usage.get("output_tokens_details") or {}).get("reasoning_tokens"))


def finish_reason_of(response: dict[str, Any], has_tool_calls: bool) -> str | None:
    """Chat-style finish reason: stop, tool_calls, length, content_filter (None when not finished)."""
    status = response.get("status")
    if status == "incomplete":
        reason = (response.get("incomplete_details") or {}).get("reason")
        return "length" if reason == "max_output_tokens" else str(reason or "incomplete")
    if status in ("completed", None):
        return "tool_calls" if has_tool_calls else "stop"
    return None


def chat_response_from_responses(
    response: dict[str, Any], *, streamed: bool, items: list[dict[str, Any]] | None = None
) -> ChatResponse:
    """A Responses ``response`` object (as a dict) as a ChatResponse. ``items`` overrides its output list
    (a stream's completed items, when the final event carries none)."""
    output = items if items is not None else list(response.get("output") or [])
    blocks = [block for block in (block_from_item(item) for item in output) if block is not None]
    blocks = [block for block in blocks if not (isinstance(block, TextBlock) and not block.text)]
    calls = [ToolCall(id=b.id, name=b.name, arguments=b.input) for b in blocks if isinstance(b, ToolCallBlock)]
    metadata: dict[str, Any] = {
        "api": "responses",
        "openai:response_id": response.get("id"),
        "openai:status": response.get("status"),
        "model": response.get("model"),
        "streamed": streamed,
    }
    incomplete = (response.get("incomplete_details") or {}).get("reason")
    if incomplete:
        metadata["openai:incomplete_reason"] = incomplete
    return ChatResponse(
        content=blocks,
        tool_calls=calls or None,
        usage=usage_from_responses(response.get("usage")),
        finish_reason=finish_reason_of(response, bool(calls)),
        metadata=metadata,
    )
