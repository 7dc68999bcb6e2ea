"""Accumulate an OpenAI Chat Completions chunk stream into a ChatResponse, emitting the docs/STREAMING.md
events as the pieces arrive.

Chat chunks have no block boundaries, so they are inferred: a block opens with its first delta (reasoning
text from compatible servers, answer text, or a new tool-call index); reasoning and text close when the next
block opens, tool calls close when ``finish_reason`` arrives (their argument deltas may interleave). A stream
that ends without ``finish_reason`` (the SDK raises nothing) is a StreamError.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from amplifier_core import events
from amplifier_core.llm_errors import InvalidToolCallError, StreamError
from amplifier_core.message_models import ChatResponse

from .chat_convert import chat_response_from_completion, fresh_call_id, reasoning_text_of
from .errors import ErrorContext

Emit = Callable[[str, dict[str, Any]], Awaitable[Any]]


@dataclass
class _Block:
    index: int
    kind: str  # "thinking" | "text" | "tool_call"
    parts: list[str] = field(default_factory=list)
    call_id: str = ""
    name: str = ""
    closed: bool = False

    @property
    def text(self) -> str:
        return "".join(self.parts)


class ChatStreamAccumulator:
    def __init__(self, emit: Emit, context: ErrorContext) -> None:
        self._emit = emit
        self._context = context
        self.blocks: list[_Block] = []
        self._calls: dict[int, _Block] = {}
        self._current: _Block | None = None  # the open thinking/text block
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.completion_id: str | None = None
        self.model: str | None = None
        self.deltas_emitted = 0

    def _fail(self, reason: str) -> StreamError:
        return StreamError(f"the stream from {self._context.where} ended badly: {reason}",
                           **self._context.common())

    def _base(self, block: _Block) -> dict[str, Any]:
        return {"provider": self._context.provider, "block_index": block.index}

    async def feed(self, chunk: dict[str, Any]) -> None:
        self.completion_id = self.completion_id or chunk.get("id")
        self.model = self.model or chunk.get("model")
        if chunk.get("usage"):
            self.usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if int(choice.get("index") or 0) != 0:
                continue
            delta = choice.get("delta") or {}
            reasoning = reasoning_text_of(delta)
            if reasoning:
                await self._text_piece("thinking", reasoning)
            if delta.get("content"):
                await self._text_piece("text", delta["content"])
            for call in delta.get("tool_calls") or []:
                await self._call_piece(call)
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
                await self._close_all()

    async def _open(self, kind: str, **extra: Any) -> _Block:
        if self._current is not None:
            await self._close(self._current)
        block = _Block(len(self.blocks), kind, **extra)
        self.blocks.append(block)
        wire_type = {"thinking": "reasoning_content", "text": "content", "tool_call": "tool_calls"}[kind]
        await self._emit(events.LLM_STREAM_BLOCK_START, {**self._base(block), "wire_type": wire_type})
        data = {**self._base(block), "block_type": kind}
        if kind == "tool_call":
            data.update(tool_call_id=block.call_id, tool_name=block.name)
        await self._emit(events.CONTENT_BLOCK_START, data)
        if kind != "tool_call":
            self._current = block
        return block

    async def _text_piece(self, kind: str, piece: str) -> None:
        block = self._current
        if block is None or block.kind != kind:
            block = await self._open(kind)
        block.parts.append(piece)
        self.deltas_emitted += 1
        if kind == "thinking":
            await self._emit(events.THINKING_DELTA, {**self._base(block), "delta": piece})
        else:
            await self._emit(events.CONTENT_BLOCK_DELTA, {**self._base(block), "block_type": "text", "delta": piece})

    async def _call_piece(self, call: dict[str, Any]) -> None:
        position = int(call.get("index") or 0)
        function = call.get("function") or {}
        block = self._calls.get(position)
        if block is None:
            block = await self._open("tool_call", call_id=str(call.get("id") or "") or fresh_call_id(),
                                     name=str(function.get("name") or ""))
            self._calls[position] = block
        elif block.closed:
            raise self._fail(f"arguments arrived for tool call {block.name}, which had already finished")
        piece = function.get("arguments") or ""
        if piece:
            block.parts.append(piece)
            self.deltas_emitted += 1
            await self._emit(events.CONTENT_BLOCK_DELTA,
                             {**self._base(block), "block_type": "tool_call", "delta": piece})

    def _block_dict(self, block: _Block) -> dict[str, Any]:
        if block.kind == "thinking":
            return {"type": "thinking", "thinking": block.text, "visibility": "internal"}
        if block.kind == "text":
            return {"type": "text", "text": block.text}
        raw = block.text
        try:
            arguments = json.loads(raw) if raw.strip() else {}
        except ValueError as error:
            if self.finish_reason == "length":
                raise InvalidToolCallError(
                    f"the answer from {self._context.where} reached its length limit while writing the arguments "
                    f"of tool call {block.name}, so the call is incomplete. Raise `max_tokens` in the "
                    "provider-openai config, or ask for the work in smaller pieces.",
                    tool_name=block.name, raw_arguments=raw, **self._context.common()) from None
            raise self._fail(f"the arguments of tool call {block.name} are not valid JSON ({error})") from None
        if not isinstance(arguments, dict):
            arguments = {"value": arguments}
        return {"type": "tool_call", "id": block.call_id, "name": block.name, "input": arguments}

    async def _close(self, block: _Block) -> None:
        if block.closed:
            return
        block.closed = True
        if self._current is block:
            self._current = None
        dumped = self._block_dict(block)
        if block.kind == "thinking":
            await self._emit(events.THINKING_FINAL, {**self._base(block), "text": block.text})
        await self._emit(events.CONTENT_BLOCK_END, {**self._base(block), "block_type": block.kind, "block": dumped})
        wire_type = {"thinking": "reasoning_content", "text": "content", "tool_call": "tool_calls"}[block.kind]
        await self._emit(events.LLM_STREAM_BLOCK_END, {**self._base(block), "wire_type": wire_type})

    async def _close_all(self) -> None:
        for block in self.blocks:
            await self._close(block)

    def chat_response(self) -> ChatResponse:
        """The complete response, or StreamError when the stream ended without a finish_reason."""
        if self.finish_reason is None:
            open_calls = [b for b in self.blocks if not b.closed and b.kind == "tool_call"]
            where = f" inside tool call {open_calls[0].name}" if open_calls else ""
            raise self._fail(f"it stopped{where} without a finish_reason (the response is incomplete)")
        message: dict[str, Any] = {"role": "assistant", "content": None}
        texts = [b.text for b in self.blocks if b.kind == "text"]
        if texts:
            message["content"] = "".join(texts)
        thinking = [b.text for b in self.blocks if b.kind == "thinking"]
        if thinking:
            message["reasoning_content"] = "".join(thinking)
        calls = [b for b in self.blocks if b.kind == "tool_call"]
        if calls:
            message["tool_calls"] = [
                {"id": b.call_id, "type": "function",
                 "function": {"name": b.name, "arguments": json.dumps(self._block_dict(b)["input"])}}
                for b in calls
            ]
        completion = {"id": self.completion_id, "model": self.model, "usage": self.usage,
                      "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason}]}
        return chat_response_from_completion(completion, streamed=True)
