"""Emitting a scripted response as a stream, in small chunks, with the events of docs/STREAMING.md."""

from __future__ import annotations

import json
from typing import Any

from amplifier_core import events


def _chunks(text: str, size: int) -> list[str]:
    return [text[start:start + size] for start in range(0, len(text), size)] or [""]


async def emit_stream(hooks: Any, provider: str, blocks: list[dict[str, Any]], chunk_size: int) -> None:
    for index, block in enumerate(blocks):
        kind = block["type"]
        common = {"provider": provider, "block_index": index}
        await hooks.emit(events.LLM_STREAM_BLOCK_START, {**common, "wire_type": kind})
        start = {**common, "block_type": kind}
        if kind == "tool_call":
            start.update(tool_call_id=block["id"], tool_name=block["name"])
        await hooks.emit(events.CONTENT_BLOCK_START, start)
        if kind == "text":
            for piece in _chunks(block["text"], chunk_size):
                await hooks.emit(events.CONTENT_BLOCK_DELTA, {**common, "block_type": kind, "delta": piece})
        elif kind == "thinking":
            for piece in _chunks(block["thinking"], chunk_size):
                await hooks.emit(events.THINKING_DELTA, {**common, "delta": piece})
            await hooks.emit(events.THINKING_FINAL, {**common, "text": block["thinking"]})
        elif kind == "tool_call":
            for piece in _chunks(json.dumps(block["input"], ensure_ascii=False), chunk_size):
                await hooks.emit(events.CONTENT_BLOCK_DELTA, {**common, "block_type": kind, "delta": piece})
        await hooks.emit(events.CONTENT_BLOCK_END, {**common, "block_type": kind, "block": block})
        await hooks.emit(events.LLM_STREAM_BLOCK_END, {**common, "wire_type": kind})
