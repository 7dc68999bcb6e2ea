"""Stream frames and the id source shared by the three renderers."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any


@dataclass
class Frame:
    """One SSE frame. `is_delta` marks content deltas (default cut points fall right after the first);
    `hold` asks the server to apply the turn's chunk gate/delay before sending it."""

    data: bytes
    is_delta: bool = False
    hold: bool = False


def sse(event: str | None, payload: Any, *, is_delta: bool = False, hold: bool = False) -> Frame:
    """Encode an SSE frame: an `event:` line when named (Anthropic, Responses), then one `data:` line."""
    data = payload if isinstance(payload, str) else json.dumps(payload, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return Frame(f"{head}data: {data}\n\n".encode(), is_delta=is_delta, hold=hold)


def default_cut_index(frames: list[Frame]) -> int:
    """How many frames to send before a stream fault: through the first content delta (mid-block)."""
    for index, frame in enumerate(frames):
        if frame.is_delta:
            return index + 1
    return max(1, len(frames) // 2)


class IdSource:
    """Deterministic ids per server (msg_fake_0001, toolu_fake_0002, …) so tests can predict them."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)

    def next(self, prefix: str) -> str:
        return f"{prefix}_fake_{next(self._counter):04d}"


def argument_pieces(arguments: dict[str, Any], chunks: list[str] | None) -> tuple[str, list[str]]:
    """The JSON argument string and the pieces it is streamed in (explicit, else ~3 pieces)."""
    if chunks is not None:
        return "".join(chunks), list(chunks)
    text = json.dumps(arguments)
    size = max(1, -(-len(text) // 3))
    return text, [text[i : i + size] for i in range(0, len(text), size)]
