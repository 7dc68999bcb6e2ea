"""Whole AmplifierSessions for module tests: a one-provider mount plan (loop, context-simple, tool-filesystem)
and an opener that records the events a test usually checks and cleans every session up afterwards."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from amplifier_core import AmplifierSession

from .recorders import EventLog

# Provider config keys that make retries immediate and predictable (no jitter) in tests.
FAST_RETRIES: dict[str, Any] = {"min_retry_delay": 0.001, "max_retry_delay": 0.01, "retry_jitter": False}

SESSION_EVENTS = ["content_block:delta", "provider:retry", "llm:stream_aborted", "llm:response"]


def provider_session_plan(provider_module: str, provider_config: dict[str, Any], orchestrator: str, *,
                          filesystem_config: dict[str, Any] | None = None) -> dict[str, Any]:
    """A mount plan: ``orchestrator`` + context-simple + tool-filesystem + the provider under test."""
    return {
        "session": {"orchestrator": orchestrator, "context": "context-simple"},
        "providers": [{"module": provider_module, "config": provider_config}],
        "tools": [{"module": "tool-filesystem", "config": dict(filesystem_config or {})}],
    }


class SessionOpener:
    """Call it to open an initialized session working in ``workdir``; ``close_all`` cleans up every one."""

    def __init__(self) -> None:
        self.opened: list[AmplifierSession] = []

    async def __call__(
        self, plan: dict[str, Any], workdir: Path, *, retry_sleep: Callable[[float], Awaitable[Any]] | None = None
    ) -> tuple[AmplifierSession, EventLog]:
        """The session and a log of SESSION_EVENTS. ``retry_sleep`` replaces each mounted provider's
        backoff sleep (its ``retry_sleep`` attribute), e.g. with a SleepRecorder."""
        session = AmplifierSession(plan)
        self.opened.append(session)
        await session.initialize()
        assert session.failed_modules == []
        session.coordinator.register_capability("session.working_dir", str(workdir))
        if retry_sleep is not None:
            for provider in session.coordinator.get("providers").values():
                provider.retry_sleep = retry_sleep
        return session, EventLog().listen(session.coordinator.hooks, SESSION_EVENTS)

    async def close_all(self) -> None:
        for session in self.opened:
            await session.cleanup()
