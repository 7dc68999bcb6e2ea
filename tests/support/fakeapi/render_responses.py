"""Render a Turn as OpenAI Responses: a `response` object or its typed, sequence-numbered SSE events.

Output items, in order: a reasoning item for thinking (summary text + signature as encrypted_content),
one for redacted thinking (encrypted_content only), a message for text, one function_call per tool call.
"""

from __future__ import annotations

import time
from typing import Any

from .frames import Frame, IdSource, argument_pieces, sse
from .render_chat import error_body as error_body  # same error shape as Chat Completions
from .request import RecordedRequest
from .script import Turn, split_in_pieces


def usage(turn: Turn) -> dict[str, Any]:
    u = turn.usage
    prompt = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens
    return {
        "input_tokens": prompt,
        "input_tokens_details": {
            "cached_tokens": u.cache_read_input_tokens,
            "cache_write_tokens": u.cache_creation_input_tokens,
        },
        "output_tokens": u.output_tokens,
        "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
        "total_tokens": prompt + u.output_tokens,
    }


def _items(turn: Turn, ids: IdSource) -> list[dict[str, Any]]:
    """The completed output items of the turn."""
    items: list[dict[str, Any]] = []
    if turn.thinking is not None:
        items.append(
            {
                "id": ids.next("rs"),
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": turn.thinking}],
                "encrypted_content": turn.signature,
                "status": "completed",
            }
        )
    if turn.redacted_thinking is not None:
        items.append(
            {
                "id": ids.next("rs"),
                "type": "reasoning",
                "summary": [],
                "encrypted_content": turn.redacted_thinking,
                "status": "completed",
            }
        )
    if turn.text:
        items.append(
            {
                "id": ids.next("msg"),
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": turn.text, "annotations": [], "logprobs": []}],
            }
        )
    for call in turn.tool_calls:
        items.append(
            {
                "id": ids.next("fc"),
                "type": "function_call",
                "call_id": call.id or ids.next("call"),
                "name": call.name,
                "arguments": argument_pieces(call.arguments, call.argument_chunks)[0],
                "status": "completed",
            }
        )
    return items


def _response(turn: Turn, request: RecordedRequest, response_id: str, created: int) -> dict[str, Any]:
    body = request.json
    return {
        "id": response_id,
        "object": "response",
        "created_at": created,
        "model": turn.model or request.model,
        "status": "in_progress",
        "output": [],
        "parallel_tool_calls": bool(body.get("parallel_tool_calls", True)),
        "tool_choice": body.get("tool_choice") or "auto",
        "tools": [],
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "metadata": {},
        "temperature": None,
        "top_p": None,
        "usage": None,
    }


def _finish(response: dict[str, Any], turn: Turn, items: list[dict[str, Any]]) -> dict[str, Any]:
    done = {**response, "output": items, "usage": usage(turn), "status": "completed"}
    if turn.resolved_stop_reason == "max_tokens":
        done["status"] = "incomplete"
        done["incomplete_details"] = {"reason": "max_output_tokens"}
    return done


def response(turn: Turn, request: RecordedRequest, ids: IdSource) -> dict[str, Any]:
    """The non-streamed `response` object."""
    base = _response(turn, request, ids.next("resp"), int(time.time()))
    return _finish(base, turn, _items(turn, ids))


def stream(turn: Turn, request: RecordedRequest, ids: IdSource) -> list[Frame]:
    """created, in_progress, per item added/…deltas…/done, then completed (or incomplete on max_tokens)."""
    base = _response(turn, request, ids.next("resp"), int(time.time()))
    items = _items(turn, ids)
    frames: list[Frame] = []

    def event(kind: str, payload: dict[str, Any], *, is_delta: bool = False, hold: bool = False) -> None:
        frames.append(
            sse(kind, {"type": kind, "sequence_number": len(frames), **payload}, is_delta=is_delta, hold=hold)
        )

    event("response.created", {"response": base})
    event("response.in_progress", {"response": base})
    for output_index, item in enumerate(items):
        at = {"item_id": item["id"], "output_index": output_index}
        if item["type"] == "reasoning":
            event(
                "response.output_item.added",
                {
                    "output_index": output_index,
                    "item": {**item, "summary": [], "encrypted_content": None, "status": "in_progress"},
                },
            )
            for summary_index, summary in enumerate(item["summary"]):
                where = {**at, "summary_index": summary_index}
                event("response.reasoning_summary_part.added", {**where, "part": {"type": "summary_text", "text": ""}})
                for piece in split_in_pieces(summary["text"]):
                    event("response.reasoning_summary_text.delta", {**where, "delta": piece}, is_delta=True)
                event("response.reasoning_summary_text.done", {**where, "text": summary["text"]})
                event("response.reasoning_summary_part.done", {**where, "part": summary})
        elif item["type"] == "message":
            event(
                "response.output_item.added",
                {"output_index": output_index, "item": {**item, "content": [], "status": "in_progress"}},
            )
            where = {**at, "content_index": 0}
            event(
                "response.content_part.added",
                {**where, "part": {"type": "output_text", "text": "", "annotations": [], "logprobs": []}},
            )
            for position, piece in enumerate(turn.text_pieces()):
                event(
                    "response.output_text.delta",
                    {**where, "delta": piece, "logprobs": []},
                    is_delta=True,
                    hold=position > 0,
                )
            event("response.output_text.done", {**where, "text": turn.text, "logprobs": []})
            event("response.content_part.done", {**where, "part": item["content"][0]})
        else:
            event(
                "response.output_item.added",
                {"output_index": output_index, "item": {**item, "arguments": "", "status": "in_progress"}},
            )
            call = turn.tool_calls[[i for i in items if i["type"] == "function_call"].index(item)]
            for piece in argument_pieces(call.arguments, call.argument_chunks)[1]:
                event("response.function_call_arguments.delta", {**at, "delta": piece}, is_delta=True)
            event("response.function_call_arguments.done", {**at, "name": item["name"], "arguments": item["arguments"]})
        event("response.output_item.done", {"output_index": output_index, "item": item})
    done = _finish(base, turn, items)
    event("response.incomplete" if done["status"] == "incomplete" else "response.completed", {"response": done})
    return frames


def stream_error_frame(error_type: str, message: str, sequence_number: int) -> Frame:
    payload = {
        "type": "error",
        "code": error_type,
        "message": message,
        "param": None,
        "sequence_number": sequence_number,
    }
    return sse("error", payload)


def malformed_frame() -> Frame:
    return sse("response.output_text.delta", '{"type": "response.output_text.delta", "delta": "bro')
