"""Render a Turn as OpenAI Chat Completions: a `chat.completion` or data-only `chat.completion.chunk` frames.

Chat Completions has no thinking blocks, so thinking and redacted thinking are not rendered here.
"""

from __future__ import annotations

import time
from typing import Any

from .frames import Frame, IdSource, argument_pieces, sse
from .request import RecordedRequest
from .script import Turn

FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}

ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "permission_denied"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


def error_body(status: int, message: str, error_type: str | None = None) -> dict[str, Any]:
    """OpenAI's error shape (shared by Chat Completions and Responses)."""
    default_type, code = ERROR_TYPES.get(status, ("server_error", None))
    return {"error": {"message": message, "type": error_type or default_type, "param": None, "code": code}}


def usage(turn: Turn) -> dict[str, Any]:
    """OpenAI counts cached input inside prompt_tokens; the neutral Usage keeps it apart, so add it here."""
    u = turn.usage
    prompt = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
    return {
        "prompt_tokens": prompt,
        "completion_tokens": u.output_tokens,
        "total_tokens": prompt + u.output_tokens,
        "prompt_tokens_details": {"cached_tokens": u.cache_read_input_tokens},
        "completion_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
    }


def _tool_ids(turn: Turn, ids: IdSource) -> list[str]:
    return [call.id or ids.next("call") for call in turn.tool_calls]


def completion(turn: Turn, request: RecordedRequest, ids: IdSource) -> dict[str, Any]:
    """The non-streamed `chat.completion` object."""
    tool_calls = [
        {
            "id": call_id,
            "type": "function",
            "function": {"name": call.name, "arguments": argument_pieces(call.arguments, call.argument_chunks)[0]},
        }
        for call, call_id in zip(turn.tool_calls, _tool_ids(turn, ids), strict=True)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None, "refusal": None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": ids.next("chatcmpl"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": turn.model or request.model,
        "system_fingerprint": None,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": FINISH_REASONS[turn.resolved_stop_reason],
            }
        ],
        "usage": usage(turn),
    }


def stream(turn: Turn, request: RecordedRequest, ids: IdSource) -> list[Frame]:
    """Chunks: role, text pieces, per-call id/name then argument pieces, finish, [usage], [DONE]."""
    base = {
        "id": ids.next("chatcmpl"),
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": turn.model or request.model,
        "system_fingerprint": None,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None, *, is_delta: bool = False, hold: bool = False) -> Frame:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return sse(None, {**base, "choices": [choice], "usage": None}, is_delta=is_delta, hold=hold)

    frames = [chunk({"role": "assistant", "content": ""})]
    for position, piece in enumerate(turn.text_pieces()):
        frames.append(chunk({"content": piece}, is_delta=True, hold=position > 0))
    for index, (call, call_id) in enumerate(zip(turn.tool_calls, _tool_ids(turn, ids), strict=True)):
        head = {"index": index, "id": call_id, "type": "function", "function": {"name": call.name, "arguments": ""}}
        frames.append(chunk({"tool_calls": [head]}))
        for piece in argument_pieces(call.arguments, call.argument_chunks)[1]:
            frames.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}, is_delta=True))
    frames.append(chunk({}, FINISH_REASONS[turn.resolved_stop_reason]))
    if request.include_usage:
        frames.append(sse(None, {**base, "choices": [], "usage": usage(turn)}))
    frames.append(sse(None, "[DONE]"))
    return frames


def stream_error_frame(error_type: str, message: str) -> Frame:
    """A data frame carrying an error object, which the SDK raises as `openai.APIError`."""
    return sse(None, {"error": {"message": message, "type": error_type, "param": None, "code": error_type}})


def malformed_frame() -> Frame:
    return sse(None, '{"id": "chatcmpl-broken", "object": "chat.completion.chunk", "choices": [')
