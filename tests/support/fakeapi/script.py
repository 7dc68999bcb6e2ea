"""Provider-neutral script vocabulary: what the fake model says (Turn) or how it misbehaves (Fault).

A Turn never names an API; the renderers turn it into Anthropic Messages, OpenAI Chat Completions or
OpenAI Responses, streamed or not, according to the request that it answers.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

# Neutral stop reasons (Anthropic's vocabulary); renderers map them to each API's own words.
STOP_REASONS = ("end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "pause_turn")


@dataclass
class ToolCall:
    """One tool call the model makes; `id` defaults to a per-API generated id (toolu_… / call_…)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    # Pieces the JSON arguments are streamed in; None splits the serialized JSON into ~3 pieces.
    argument_chunks: list[str] | None = None


@dataclass
class Usage:
    """Token counts reported for a turn, in neutral names mapped onto each API's usage object."""

    input_tokens: int = 10
    output_tokens: int = 5
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0
    reasoning_tokens: int = 0


@dataclass
class Turn:
    """What the model answers: blocks in order thinking, redacted thinking, text, tool calls.

    `text_chunks` streams text in exactly those pieces (its join is the text); `chunk_gate` makes the
    server wait for that event before every text piece after the first, and `chunk_delay` sleeps that
    long between pieces, so a test can observe partial output while the turn is still open.
    """

    text: str | None = None
    text_chunks: list[str] | None = None
    thinking: str | None = None
    signature: str = "sig-fake"
    redacted_thinking: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    stop_reason: str | None = None
    chunk_gate: threading.Event | None = None
    chunk_delay: float = 0.0
    model: str | None = None  # None echoes the request's model
    ping: bool = True  # Anthropic streams: send a `ping` event after message_start, as the real API does

    def __post_init__(self) -> None:
        if self.text_chunks is not None:
            joined = "".join(self.text_chunks)
            if self.text is not None and self.text != joined:
                raise ValueError("Turn: text and text_chunks disagree; give only text_chunks")
            self.text = joined
        if self.stop_reason is not None and self.stop_reason not in STOP_REASONS:
            raise ValueError(f"Turn: stop_reason {self.stop_reason!r} is not one of {', '.join(STOP_REASONS)}")

    @property
    def resolved_stop_reason(self) -> str:
        """The stop reason to send: explicit, else tool_use when the turn calls tools, else end_turn."""
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_use" if self.tool_calls else "end_turn"

    def text_pieces(self) -> list[str]:
        """The text split into streamed pieces (explicit chunks, else ~3 roughly equal pieces)."""
        if self.text_chunks is not None:
            return list(self.text_chunks)
        return split_in_pieces(self.text or "")


def split_in_pieces(value: str, count: int = 3) -> list[str]:
    """Split a string into at most `count` non-empty pieces so every stream has several deltas."""
    if not value:
        return []
    size = max(1, -(-len(value) // count))
    return [value[i : i + size] for i in range(0, len(value), size)]


# Fault kinds
STATUS = "status"
STREAM_ERROR = "stream_error"
STREAM_CUT = "stream_cut"
MALFORMED = "malformed"
DROP = "drop"


@dataclass
class Fault:
    """A scripted failure. Build with the class methods; each names one way an API or network fails."""

    kind: str
    status_code: int = 500
    message: str | None = None
    error_type: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    turn: Turn | None = None  # for stream faults: what was streamed before the failure
    after_frames: int | None = None  # for stream faults: frames sent before failing (None: mid-block)
    clean_end: bool = False  # stream_cut: finish the chunked body properly instead of dropping the socket

    @classmethod
    def status(
        cls,
        status_code: int,
        *,
        retry_after: float | None = None,
        retry_after_ms: int | None = None,
        should_retry: bool | None = None,
        message: str | None = None,
        error_type: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Fault:
        """An HTTP error before any body, in the API's own error shape (429, 401, 400, 500, 529, …)."""
        extra = dict(headers or {})
        if retry_after is not None:
            extra["retry-after"] = _number_text(retry_after)
        if retry_after_ms is not None:
            extra["retry-after-ms"] = str(retry_after_ms)
        if should_retry is not None:
            extra["x-should-retry"] = "true" if should_retry else "false"
        return cls(STATUS, status_code=status_code, message=message, error_type=error_type, headers=extra)

    @classmethod
    def stream_error(
        cls,
        turn: Turn | None = None,
        *,
        error_type: str = "overloaded_error",
        message: str = "Overloaded",
        after_frames: int | None = None,
    ) -> Fault:
        """A 200 stream that starts `turn` then reports an in-stream error event (non-stream: HTTP 500)."""
        return cls(STREAM_ERROR, message=message, error_type=error_type, turn=turn, after_frames=after_frames)

    @classmethod
    def stream_cut(cls, turn: Turn | None = None, *, after_frames: int | None = None, clean_end: bool = False) -> Fault:
        """A stream that stops mid-block: the socket closes (or, with clean_end, the body just ends).

        For a non-stream request the JSON body is truncated before the connection closes.
        """
        return cls(STREAM_CUT, turn=turn, after_frames=after_frames, clean_end=clean_end)

    @classmethod
    def malformed_sse(cls, turn: Turn | None = None, *, after_frames: int | None = None) -> Fault:
        """A stream whose next frame carries invalid JSON (non-stream: an invalid JSON body)."""
        return cls(MALFORMED, turn=turn, after_frames=after_frames)

    @classmethod
    def drop(cls) -> Fault:
        """The connection closes after the request is read, before any response byte."""
        return cls(DROP)

    def partial_turn(self) -> Turn:
        """The turn streamed before a stream fault fires (a default text turn when none was given)."""
        return self.turn if self.turn is not None else Turn(text="partial answer that never finishes")


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
