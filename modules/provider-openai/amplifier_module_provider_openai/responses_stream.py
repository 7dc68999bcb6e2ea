"""Accumulate an OpenAI Responses event stream into a ChatResponse, emitting the docs/STREAMING.md events as
the pieces arrive.

Works on plain event dicts (the SDK's typed events go through ``to_dict()``), so it is tested without a
server. The SDK lets a stream end without ``response.completed`` and delivers in-stream ``error`` events as
ordinary events; both become StreamError here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from amplifier_core import events
from amplifier_core.llm_errors import StreamError
from amplifier_core.message_models import ChatResponse

from .errors import ErrorContext, stream_error_event
from .responses_convert import block_from_item, chat_response_from_responses

Emit = Callable[[str, dict[str, Any]], Awaitable[Any]]

BLOCK_TYPES = {"reasoning": "thinking", "message": "text", "function_call": "tool_call"}
_FINAL_EVENTS = ("response.completed", "response.incomplete")


class ResponsesStreamAccumulator:
    def __init__(self, emit: Emit, context: ErrorContext) -> None:
        self._emit = emit
        self._context = context
        self.response: dict[str, Any] = {}
        self.final: dict[str, Any] | None = None
        self.items: dict[int, dict[str, Any]] = {}
        self.done_items: dict[int, dict[str, Any]] = {}
        self.deltas_emitted = 0

    def _fail(self, reason: str) -> StreamError:
        return StreamError(f"the stream from {self._context.where} ended badly: {reason}",
                           **self._context.common())

    def _base(self, index: int) -> dict[str, Any]:
        return {"provider": self._context.provider, "block_index": index}

    async def feed(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind in ("response.created", "response.in_progress"):
            self.response = dict(event.get("response") or {})
        elif kind == "response.output_item.added":
            await self._item_added(int(event.get("output_index", len(self.items))), dict(event.get("item") or {}))
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            await self._thinking_delta(event)
        elif kind == "response.reasoning_summary_part.added" and int(event.get("summary_index") or 0) > 0:
            await self._thinking_delta({**event, "delta": "\n\n"})
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            await self._delta(event, "text")
        elif kind == "response.function_call_arguments.delta":
            await self._delta(event, "tool_call")
        elif kind == "response.output_item.done":
            await self._item_done(int(event.get("output_index", 0)), dict(event.get("item") or {}))
        elif kind in _FINAL_EVENTS:
            self.final = dict(event.get("response") or {})
        elif kind == "response.failed":
            failed = dict(event.get("response") or {})
            detail = failed.get("error") or {}
            raise stream_error_event(detail.get("code"), detail.get("message") or "response failed", self._context)
        elif kind == "error":
            raise stream_error_event(event.get("code"), event.get("message"), self._context)

    async def _item_added(self, index: int, item: dict[str, Any]) -> None:
        if index in self.items:
            raise self._fail(f"output item {index} started twice")
        self.items[index] = item
        wire_type = str(item.get("type"))
        await self._emit(events.LLM_STREAM_BLOCK_START, {**self._base(index), "wire_type": wire_type})
        block_type = BLOCK_TYPES.get(wire_type)
        if block_type is None:
            return
        data = {**self._base(index), "block_type": block_type}
        if block_type == "tool_call":
            data.update(tool_call_id=item.get("call_id"), tool_name=item.get("name"))
        await self._emit(events.CONTENT_BLOCK_START, data)

    def _open_index(self, event: dict[str, Any]) -> int:
        index = int(event.get("output_index", -1))
        if index not in self.items or index in self.done_items:
            raise self._fail(f"a delta arrived for output item {index}, which is not open")
        return index

    async def _thinking_delta(self, event: dict[str, Any]) -> None:
        index = self._open_index(event)
        self.deltas_emitted += 1
        await self._emit(events.THINKING_DELTA, {**self._base(index), "delta": event.get("delta") or ""})

    async def _delta(self, event: dict[str, Any], block_type: str) -> None:
        index = self._open_index(event)
        self.deltas_emitted += 1
        await self._emit(events.CONTENT_BLOCK_DELTA,
                         {**self._base(index), "block_type": block_type, "delta": event.get("delta") or ""})

    async def _item_done(self, index: int, item: dict[str, Any]) -> None:
        if index not in self.items or index in self.done_items:
            raise self._fail(f"output item {index} finished without being open")
        self.done_items[index] = item
        wire_type = str(item.get("type"))
        block_type = BLOCK_TYPES.get(wire_type)
        if block_type is not None:
            block = block_from_item(item)
            dumped = block.model_dump(exclude_none=True) if block is not None else dict(item)
            if block_type == "thinking":
                await self._emit(events.THINKING_FINAL, {**self._base(index), "text": dumped.get("thinking", "")})
            await self._emit(events.CONTENT_BLOCK_END, {**self._base(index), "block_type": block_type,
                                                        "block": dumped})
        await self._emit(events.LLM_STREAM_BLOCK_END, {**self._base(index), "wire_type": wire_type})

    def chat_response(self) -> ChatResponse:
        """The complete response, or StreamError when the stream did not finish properly."""
        if self.final is None:
            open_items = sorted(set(self.items) - set(self.done_items))
            if open_items:
                item = self.items[open_items[0]]
                raise self._fail(f"it was cut inside output item {open_items[0]} ({item.get('type')}) and no "
                                 "response.completed event arrived")
            raise self._fail("no response.completed event arrived")
        open_items = sorted(set(self.items) - set(self.done_items))
        if open_items:
            raise self._fail(f"output item {open_items[0]} never finished")
        items = list(self.final.get("output") or []) or [self.done_items[i] for i in sorted(self.done_items)]
        return chat_response_from_responses(self.final, streamed=True, items=items)
