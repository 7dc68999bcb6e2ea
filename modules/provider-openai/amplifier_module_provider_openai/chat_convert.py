"""Kernel messages <-> OpenAI Chat Completions (pure functions, no SDK).

Written for the strictest OpenAI-compatible servers (llama.cpp, Ollama, vLLM and LM Studio chat templates):
one system message first, consecutive same-role messages merged, plain string content whenever there is no
image, and ``content: null`` only beside tool calls.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from amplifier_core.message_models import (
    ChatResponse,
    ImageBlock,
    Message,
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

# -- request ------------------------------------------------------------------------------------------


def _user_content(message: Message) -> str | list[dict[str, Any]] | None:
    if isinstance(message.content, str):
        return message.content
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock):
            url = image_url(block)
            if url:
                parts.append({"type": "image_url", "image_url": {"url": url}})
    if not parts:
        return None
    if all(part["type"] == "text" for part in parts):
        return "\n\n".join(part["text"] for part in parts)
    return parts


def _as_parts(content: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _merge_user(previous: dict[str, Any], content: str | list[dict[str, Any]]) -> None:
    if isinstance(previous["content"], str) and isinstance(content, str):
        previous["content"] = f"{previous['content']}\n\n{content}"
    else:
        previous["content"] = _as_parts(previous["content"]) + _as_parts(content)


def _assistant_message(message: Message) -> dict[str, Any] | None:
    text = message_text(message)
    calls = assistant_calls(message)
    if not text and not calls:
        return None
    wire: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        wire["tool_calls"] = [
            {"id": call.id, "type": "function",
             "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)}}
            for call in calls
        ]
    return wire


def _merge_assistant(previous: dict[str, Any], current: dict[str, Any]) -> None:
    texts = [text for text in (previous.get("content"), current.get("content")) if text]
    previous["content"] = "\n\n".join(texts) or None
    if current.get("tool_calls"):
        previous["tool_calls"] = previous.get("tool_calls", []) + current["tool_calls"]


def messages_to_chat(messages: list[Message]) -> list[dict[str, Any]]:
    """Convert a repaired conversation. Thinking is not sent back: Chat Completions has no field for it."""
    system_texts: list[str] = []
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role in ("system", "developer"):
            text = message_text(message)
            if text:
                system_texts.append(text)
        elif message.role == "user":
            content = _user_content(message)
            if content is None:
                continue
            if wire and wire[-1]["role"] == "user":
                _merge_user(wire[-1], content)
            else:
                wire.append({"role": "user", "content": content})
        elif message.role == "assistant":
            converted = _assistant_message(message)
            if converted is None:
                continue
            if wire and wire[-1]["role"] == "assistant" and not wire[-1].get("tool_calls"):
                _merge_assistant(wire[-1], converted)
            else:
                wire.append(converted)
        elif message.role in ("tool", "function"):
            wire.append({"role": "tool", "tool_call_id": message.tool_call_id, "content": tool_output(message)})
    if system_texts:
        wire.insert(0, {"role": "system", "content": "\n\n".join(system_texts)})
    return wire


def tools_to_chat(tools: list[ToolSpec] | None) -> list[dict[str, Any]]:
    """Function tools in the Chat shape (nested: ``{"type": "function", "function": {...}}``)."""
    return [{"type": "function", "function": function_definition(tool)} for tool in tools or []]


def tool_choice_to_chat(choice: str | dict[str, Any] | None) -> Any:
    if choice is None:
        return None
    if isinstance(choice, str):
        return tool_choice_keyword(choice) or {"type": "function", "function": {"name": choice}}
    name = choice.get("name") or (choice.get("function") or {}).get("name")
    return {"type": "function", "function": {"name": name}} if name else choice


def response_format_to_chat(response_format: Any) -> dict[str, Any] | None:
    """ChatRequest.response_format as Chat's ``response_format`` (None for plain text)."""
    kind = getattr(response_format, "type", None)
    if kind == "json":
        return {"type": "json_object"}
    if kind == "json_schema":
        return {"type": "json_schema", "json_schema": named_json_schema(response_format)}
    return None


# -- response -----------------------------------------------------------------------------------------


def usage_from_chat(usage: dict[str, Any] | None) -> Usage | None:
    """Chat usage: prompt_tokens already includes cached tokens (gross), as the kernel wants."""
    if not usage:
        return None
    return usage_from_counts(usage.get("prompt_tokens"), usage.get("completion_tokens"), usage.get("total_tokens"),
                             cached=(usage.get("prompt_tokens_details") or {}).get("cached_tokens"),
                             reasoning=(usage.get("completion_tokens_details") or {}).get("reasoning_tokens"))


def reasoning_text_of(message: dict[str, Any]) -> str | None:
    """Reasoning some OpenAI-compatible servers (vLLM, Ollama, DeepSeek) return beside the answer."""
    for key in ("reasoning_content", "reasoning"):
        value = message.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def fresh_call_id() -> str:
    """An id for a tool call that a local server returned without one (results must name their call)."""
    return f"call_{uuid.uuid4().hex[:24]}"


def chat_response_from_completion(completion: dict[str, Any], *, streamed: bool) -> ChatResponse:
    """A ``chat.completion`` object (as a dict) as a ChatResponse; only the first choice is used."""
    choices = completion.get("choices") or []
    choice = choices[0] if choices else {}
    message = choice.get("message") or {}
    blocks: list[Any] = []
    reasoning = reasoning_text_of(message)
    if reasoning:
        blocks.append(ThinkingBlock(thinking=reasoning, visibility="internal"))
    text = message.get("content") or message.get("refusal")
    if text:
        blocks.append(TextBlock(text=text))
    calls: list[ToolCall] = []
    for entry in message.get("tool_calls") or []:
        function = entry.get("function") or {}
        name = str(function.get("name") or "")
        arguments = parse_arguments(function.get("arguments"), tool_name=name)
        call_id = str(entry.get("id") or "") or fresh_call_id()
        blocks.append(ToolCallBlock(id=call_id, name=name, input=arguments))
        calls.append(ToolCall(id=call_id, name=name, arguments=arguments))
    return ChatResponse(
        content=blocks,
        tool_calls=calls or None,
        usage=usage_from_chat(completion.get("usage")),
        finish_reason=choice.get("finish_reason"),
        metadata={"api": "chat", "openai:response_id": completion.get("id"), "model": completion.get("model"),
                  "streamed": streamed},
    )
