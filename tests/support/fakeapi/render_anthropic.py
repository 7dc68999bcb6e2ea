"""Render a Turn as Anthropic Messages: a JSON `Message` or the SSE event sequence the SDK accumulates."""

from __future__ import annotations

import json
from typing import Any

from .frames import Frame, IdSource, argument_pieces, sse
from .request import RecordedRequest
from .script import Turn, split_in_pieces

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def error_body(status: int, message: str, error_type: str | None = None) -> dict[str, Any]:
    return {"type": "error", "error": {"type": error_type or ERROR_TYPES.get(status, "api_error"), "message": message}}


def _tool_ids(turn: Turn, ids: IdSource) -> list[str]:
    return [call.id or ids.next("toolu") for call in turn.tool_calls]


def _usage(turn: Turn) -> dict[str, Any]:
    usage = turn.usage
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
    }


def message(turn: Turn, request: RecordedRequest, ids: IdSource) -> dict[str, Any]:
    """The non-streamed `Message` object."""
    content: list[dict[str, Any]] = []
    if turn.thinking is not None:
        content.append({"type": "thinking", "thinking": turn.thinking, "signature": turn.signature})
    if turn.redacted_thinking is not None:
        content.append({"type": "redacted_thinking", "data": turn.redacted_thinking})
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    for call, call_id in zip(turn.tool_calls, _tool_ids(turn, ids), strict=True):
        content.append({"type": "tool_use", "id": call_id, "name": call.name, "input": call.arguments})
    return {
        "id": ids.next("msg"),
        "type": "message",
        "role": "assistant",
        "model": turn.model or request.model,
        "content": content,
        "stop_reason": turn.resolved_stop_reason,
        "stop_sequence": None,
        "usage": _usage(turn),
    }


def stream(turn: Turn, request: RecordedRequest, ids: IdSource) -> list[Frame]:
    """The full SSE sequence: message_start, [ping], one block per index 0..n-1, message_delta, message_stop."""
    start_usage = {**_usage(turn), "output_tokens": 1}
    frames = [
        sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": ids.next("msg"),
                    "type": "message",
                    "role": "assistant",
                    "model": turn.model or request.model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                },
            },
        )
    ]
    if turn.ping:
        frames.append(sse("ping", {"type": "ping"}))
    index = 0

    def block(start: dict[str, Any], deltas: list[dict[str, Any]], held: bool = False) -> None:
        nonlocal index
        frames.append(
            sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
        )
        for position, delta in enumerate(deltas):
            payload = {"type": "content_block_delta", "index": index, "delta": delta}
            frames.append(sse("content_block_delta", payload, is_delta=True, hold=held and position > 0))
        frames.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1

    if turn.thinking is not None:
        deltas = [{"type": "thinking_delta", "thinking": piece} for piece in split_in_pieces(turn.thinking)]
        deltas.append({"type": "signature_delta", "signature": turn.signature})
        block({"type": "thinking", "thinking": "", "signature": ""}, deltas)
    if turn.redacted_thinking is not None:
        block({"type": "redacted_thinking", "data": turn.redacted_thinking}, [])
    if turn.text:
        block(
            {"type": "text", "text": ""},
            [{"type": "text_delta", "text": piece} for piece in turn.text_pieces()],
            held=True,
        )
    for call, call_id in zip(turn.tool_calls, _tool_ids(turn, ids), strict=True):
        _, pieces = argument_pieces(call.arguments, call.argument_chunks)
        block(
            {"type": "tool_use", "id": call_id, "name": call.name, "input": {}},
            [{"type": "input_json_delta", "partial_json": piece} for piece in pieces],
        )
    end_usage = _usage(turn)
    frames.append(
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": turn.resolved_stop_reason, "stop_sequence": None},
                "usage": end_usage,
            },
        )
    )
    frames.append(sse("message_stop", {"type": "message_stop"}))
    return frames


def stream_error_frame(error_type: str, message_text: str) -> Frame:
    return sse("error", {"type": "error", "error": {"type": error_type, "message": message_text}})


def malformed_frame() -> Frame:
    """A content_block_delta whose JSON is cut short (it keeps its `event:` line so the SDK parses it)."""
    broken = json.dumps({"type": "content_block_delta", "index": 0})[:-1] + ', "delta": {"type": "text_delta", "te'
    return sse("content_block_delta", broken)
