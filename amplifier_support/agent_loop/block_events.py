"""Content-block events for a response the provider did not stream itself (docs/STREAMING.md shapes), so
display hooks see one event shape whether or not the provider streamed."""

from __future__ import annotations

from typing import Any

from amplifier_core import events
from amplifier_core.message_models import ChatResponse


async def announce_blocks(hooks: Any, provider_name: str, response: ChatResponse, *, with_deltas: bool) -> None:
    """Emit content_block:start/end for every block; with ``with_deltas`` also the whole text of each text
    block as one content_block:delta and each thinking block as thinking:delta + thinking:final."""
    blocks = [block.model_dump(mode="json", exclude_none=True) for block in response.content]
    total = len(blocks)
    for index, block in enumerate(blocks):
        block_type = block.get("type", "text")
        base: dict[str, Any] = {"provider": provider_name, "block_index": index, "block_type": block_type,
                                "total_blocks": total}
        start = dict(base)
        if block_type == "tool_call":
            start.update(tool_call_id=block.get("id"), tool_name=block.get("name"))
        await hooks.emit(events.CONTENT_BLOCK_START, start)
        if with_deltas and block_type == "text" and block.get("text"):
            await hooks.emit(events.CONTENT_BLOCK_DELTA, {**base, "delta": block["text"]})
        elif with_deltas and block_type == "thinking":
            thinking = block.get("thinking", "")
            if thinking:
                await hooks.emit(events.THINKING_DELTA,
                                 {"provider": provider_name, "block_index": index, "delta": thinking})
            await hooks.emit(events.THINKING_FINAL, {"provider": provider_name, "block_index": index,
                                                     "text": thinking})
        await hooks.emit(events.CONTENT_BLOCK_END, {**base, "block": block})
