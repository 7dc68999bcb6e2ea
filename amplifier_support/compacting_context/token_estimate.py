"""Token estimates for transcript messages, measured on the text a provider would send (not Python reprs).

The estimate is characters / 4 over what the model actually reads: content strings, text and thinking
block text, tool-call names and argument JSON, tool results. Signatures, ids, metadata and timestamps are
not counted: they are either not tokens the model reads or negligible. Images get a fixed allowance.
"""

from __future__ import annotations

import json
from typing import Any

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 4  # role markers and separators the wire formats add per message
IMAGE_TOKENS = 1600  # a typical ~1 megapixel image on the Anthropic/OpenAI pricing formulas


def _json_chars(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    try:
        return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str))
    except (TypeError, ValueError):
        return len(str(value))


def _as_dict(block: Any) -> dict[str, Any] | None:
    if isinstance(block, dict):
        return block
    dump = getattr(block, "model_dump", None)
    if callable(dump):
        try:
            dumped = dump()
        except Exception:
            return None
        return dumped if isinstance(dumped, dict) else None
    return None


def _block_chars(block: Any) -> tuple[int, bool]:
    """(characters the model reads, whether the block is a tool call)."""
    if isinstance(block, str):
        return len(block), False
    data = _as_dict(block)
    if data is None:
        return 0, False
    kind = data.get("type")
    if kind == "text":
        return _json_chars(data.get("text") or ""), False
    if kind == "thinking":
        return _json_chars(data.get("thinking") or ""), False
    if kind == "tool_call":
        return _json_chars(data.get("name") or "") + _json_chars(data.get("input") or {}), True
    if kind == "tool_result":
        return _json_chars(data.get("output") if data.get("output") is not None else ""), False
    if kind == "image":
        return IMAGE_TOKENS * CHARS_PER_TOKEN, False
    if kind == "reasoning":
        return sum(_json_chars(part) for part in data.get("summary") or []), False
    if kind == "redacted_thinking":
        return 0, False
    text = data.get("text")
    return (len(text) if isinstance(text, str) else 0), False


def estimate_message_tokens(message: Any) -> int:
    """Approximate input tokens of one transcript message (see the module docstring for what counts)."""
    if not isinstance(message, dict):
        return MESSAGE_OVERHEAD_TOKENS
    chars = 0
    has_call_blocks = False
    content = message.get("content")
    if isinstance(content, str):
        chars += len(content)
    elif isinstance(content, list):
        for block in content:
            block_chars, is_call = _block_chars(block)
            chars += block_chars
            has_call_blocks = has_call_blocks or is_call
    elif content is not None:
        chars += _json_chars(content)
    tool_calls = message.get("tool_calls")
    if isinstance(tool_calls, list) and not has_call_blocks:
        for call in tool_calls:
            if isinstance(call, dict):
                name = call.get("tool") or call.get("name") or ""
                arguments = call.get("arguments", call.get("input"))
                chars += _json_chars(name) + _json_chars(arguments if arguments is not None else {})
    name = message.get("name")
    if isinstance(name, str):
        chars += len(name)
    return MESSAGE_OVERHEAD_TOKENS + -(-chars // CHARS_PER_TOKEN)
