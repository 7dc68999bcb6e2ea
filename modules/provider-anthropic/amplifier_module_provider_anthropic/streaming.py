"""Accumulate an Anthropic SSE event stream into a complete message, emitting the docs/STREAMING.md events
as each piece arrives.

Works on plain event dicts (the SDK's typed events go through ``to_dict()``), so it is tested without a
server. It raises StreamError for every way a stream can end badly that the SDK lets through silently:
no ``message_stop``, no ``stop_reason``, a block that never closed, tool arguments that are not JSON.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from amplifier_core import events
from amplifier_core.llm_errors import InvalidToolCallError, StreamError

from .convert import block_from_wire

Emit = Callable[[str, dict[str, Any]], Awaitable[Any]]

BLOCK_TYPES = {"text": "text", "thinking": "thinking", "redacted_thinking": "redacted_thinking",
               "tool_use": "tool_call"}


class StreamAccumulator:
    def __init__(self, emit: Emit, provider: str, model: str) -> None:
        self._emit = emit
        self._provider = provider
        self._model = model
        self.message: dict[str, Any] = {}
        self.blocks: dict[int, dict[str, Any]] = {}
        self._partial_json: dict[int, list[str]] = {}
        self._open: set[int] = set()
        self._unparsed: dict[int, tuple[str, str]] = {}  # block index -> (tool name, raw arguments)
        self.usage: dict[str, Any] = {}
        self.stop_reason: str | None = None
        self.stopped = False
        self.deltas_emitted = 0

    def _fail(self, reason: str) -> StreamError:
        return StreamError(f"Anthropic stream for model {self._model} ended badly: {reason}",
                           provider=self._provider, model=self._model)

    async def feed(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "message_start":
            self.message = dict(event.get("message") or {})
            self.usage.update(self.message.get("usage") or {})
        elif kind == "content_block_start":
            await self._start(int(event["index"]), dict(event.get("content_block") or {}))
        elif kind == "content_block_delta":
            await self._delta(int(event["index"]), event.get("delta") or {})
        elif kind == "content_block_stop":
            await self._stop(int(event["index"]))
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            if delta.get("stop_reason"):
                self.stop_reason = delta["stop_reason"]
            self.usage.update({k: v for k, v in (event.get("usage") or {}).items() if v is not None})
        elif kind == "message_stop":
            self.stopped = True

    async def _start(self, index: int, block: dict[str, Any]) -> None:
        if index in self.blocks:
            raise self._fail(f"block {index} started twice")
        wire_type = str(block.get("type"))
        if wire_type == "tool_use":
            block["input"] = {}
        self.blocks[index] = block
        self._open.add(index)
        await self._emit(events.LLM_STREAM_BLOCK_START,
                         {"provider": self._provider, "block_index": index, "wire_type": wire_type})
        block_type = BLOCK_TYPES.get(wire_type)
        if block_type is None:
            return
        data: dict[str, Any] = {"provider": self._provider, "block_index": index, "block_type": block_type}
        if block_type == "tool_call":
            data.update(tool_call_id=block.get("id"), tool_name=block.get("name"))
        await self._emit(events.CONTENT_BLOCK_START, data)

    async def _delta(self, index: int, delta: dict[str, Any]) -> None:
        block = self.blocks.get(index)
        if block is None or index not in self._open:
            raise self._fail(f"delta for block {index}, which is not open")
        kind = delta.get("type")
        base = {"provider": self._provider, "block_index": index}
        if kind == "text_delta":
            piece = delta.get("text") or ""
            block["text"] = (block.get("text") or "") + piece
            self.deltas_emitted += 1
            await self._emit(events.CONTENT_BLOCK_DELTA, {**base, "block_type": "text", "delta": piece})
        elif kind == "thinking_delta":
            piece = delta.get("thinking") or ""
            block["thinking"] = (block.get("thinking") or "") + piece
            self.deltas_emitted += 1
            await self._emit(events.THINKING_DELTA, {**base, "delta": piece})
        elif kind == "signature_delta":
            block["signature"] = (block.get("signature") or "") + (delta.get("signature") or "")
        elif kind == "input_json_delta":
            piece = delta.get("partial_json") or ""
            self._partial_json.setdefault(index, []).append(piece)
            self.deltas_emitted += 1
            await self._emit(events.CONTENT_BLOCK_DELTA, {**base, "block_type": "tool_call", "delta": piece})
        elif kind == "citations_delta":
            block.setdefault("citations", []).append(delta.get("citation"))

    async def _stop(self, index: int) -> None:
        block = self.blocks.get(index)
        if block is None or index not in self._open:
            raise self._fail(f"stop for block {index}, which is not open")
        self._open.discard(index)
        wire_type = str(block.get("type"))
        if wire_type == "tool_use":
            text = "".join(self._partial_json.pop(index, []))
            try:
                arguments = json.loads(text) if text.strip() else {}
            except ValueError:
                # Judged in final_message(): a max_tokens cut is not worth retrying, bad JSON otherwise is.
                self._unparsed[index] = (str(block.get("name")), text)
                arguments = {}
            block["input"] = arguments if isinstance(arguments, dict) else {"value": arguments}
        base = {"provider": self._provider, "block_index": index}
        block_type = BLOCK_TYPES.get(wire_type)
        if block_type is not None and index not in self._unparsed:  # an unusable call is never "finished"
            if wire_type == "thinking":
                await self._emit(events.THINKING_FINAL, {**base, "text": block.get("thinking") or ""})
            kernel_block = block_from_wire(block)
            dumped = kernel_block.model_dump(exclude_none=True) if kernel_block is not None else dict(block)
            await self._emit(events.CONTENT_BLOCK_END, {**base, "block_type": block_type, "block": dumped})
        await self._emit(events.LLM_STREAM_BLOCK_END, {**base, "wire_type": wire_type})

    def final_message(self) -> dict[str, Any]:
        """The complete message, or StreamError when the stream did not finish properly."""
        if not self.message:
            raise self._fail("no message_start event arrived")
        if self._open:
            raise self._fail(f"block {min(self._open)} never closed (the stream was cut mid-block)")
        if self.stop_reason is None:
            raise self._fail("no stop_reason arrived (the stream was cut before message_delta)")
        if not self.stopped:
            raise self._fail("no message_stop event arrived")
        if self._unparsed:
            name, raw = self._unparsed[min(self._unparsed)]
            if self.stop_reason == "max_tokens":
                raise InvalidToolCallError(
                    f"Anthropic answer (model {self._model}) reached max_tokens while writing the arguments of "
                    f"tool call {name}, so the call is incomplete. Raise `max_tokens` in the provider-anthropic "
                    "config, or ask for the work in smaller pieces.",
                    tool_name=name, raw_arguments=raw, provider=self._provider, model=self._model)
            raise self._fail(f"tool call {name} arguments are not valid JSON: {raw[:200]!r}")
        ordered = [self.blocks[index] for index in sorted(self.blocks)]
        return {**self.message, "content": ordered, "stop_reason": self.stop_reason, "usage": dict(self.usage)}
