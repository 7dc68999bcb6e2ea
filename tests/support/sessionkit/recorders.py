"""Recorders tests hand to the code under test: an event log for hooks, and a stand-in for backoff sleeps."""

from __future__ import annotations

import asyncio
from typing import Any

from amplifier_core import events

# What a provider emits around a call: request/response, retries, repairs, and the streaming block events.
PROVIDER_EVENTS = [
    events.LLM_REQUEST, events.LLM_RESPONSE, events.PROVIDER_RETRY, events.PROVIDER_TOOL_SEQUENCE_REPAIRED,
    events.CONTENT_BLOCK_START, events.CONTENT_BLOCK_DELTA, events.CONTENT_BLOCK_END, events.THINKING_DELTA,
    events.THINKING_FINAL, events.LLM_STREAM_BLOCK_START, events.LLM_STREAM_BLOCK_END, events.LLM_STREAM_ABORTED,
]


class EventLog:
    """Every recorded event as (name, data), in emission order."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, dict[str, Any]]] = []

    async def handler(self, event: str, data: dict[str, Any]) -> None:
        """A hook handler: register it for each event to record."""
        self.entries.append((event, dict(data)))

    # Stand-in for hooks.emit when an emitter (a stream accumulator, say) is tested without a coordinator.
    emit = handler

    def listen(self, hooks: Any, names: list[str]) -> EventLog:
        """Register on ``hooks`` for each of ``names``; returns self."""
        for name in names:
            hooks.register(name, self.handler, name="test-event-log")
        return self

    def names(self) -> list[str]:
        return [name for name, _ in self.entries]

    def of(self, name: str) -> list[dict[str, Any]]:
        return [data for event, data in self.entries if event == name]


class SleepRecorder(list):
    """Pass as a retry ``sleep``: records each backoff delay instead of waiting it out (yields once, as a
    real sleep would, so other tasks still run)."""

    async def __call__(self, delay: float) -> None:
        self.append(delay)
        await asyncio.sleep(0)
