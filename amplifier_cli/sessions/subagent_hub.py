"""What all the sub-agents of one top-level session share, at any depth: the limit of children at the model at once,
the list of children (running, queued, finished in the background), the observers that see the children's events
(stream-json, ACP, the chat's list) and the lock that asks their approval questions one at a time.

The top-level session makes the hub (`SubAgentHub.for_settings`) and hands it down to every child as capability
`session.subagents`, so the limit and the list hold across the whole tree. The limit counts model requests, not
child lifetimes: a child waiting for its own children holds no slot, so no limit can deadlock a tree."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

DEFAULT_MAX_PARALLEL = 4

RunState = Literal["queued", "running", "completed", "failed", "cancelled"]
ChildObserver = Callable[[str, dict[str, Any], "ChildRun"], Awaitable[None]]

# the children's events the front-ends translate (stream-json, ACP); each goes to the observers with its ChildRun
FORWARDED_EVENTS = ("content_block:delta", "content_block:end", "thinking:delta", "tool:pre", "tool:post",
                    "tool:error", "llm:response", "provider:error", "provider:retry", "todo:updated")


@dataclass(eq=False)
class ChildRun:
    """One sub-agent run as the parent and the front-ends see it."""

    session_id: str
    agent: str
    parent_session_id: str
    background: bool = False
    state: RunState = "running"
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    current_tool: str | None = None
    waiting_for_slot: bool = False
    live: Any = None  # the child's LiveSession while it runs
    result: dict[str, Any] | None = None
    error: str | None = None
    task: asyncio.Task[Any] | None = None  # a background run's task
    worktree: Any = None  # sessions.worktrees.Worktree of an `isolation: worktree` agent
    resumed_in: str | None = None  # a continued child: the directory it worked in before
    done: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def running(self) -> bool:
        return self.state in ("queued", "running")

    def elapsed(self) -> float:
        return (self.finished or time.monotonic()) - self.started

    def waiting_on_model(self) -> bool:
        """Nothing of its own is running: it waits on the model (or a slot), or on children that do."""
        live = self.live
        if live is None:
            return True
        tools = live.coordinator.cancellation.running_tool_names
        return all(name == "task" for name in tools)

    def finish(self, state: RunState, *, result: dict[str, Any] | None = None, error: str | None = None) -> None:
        self.state, self.result, self.error = state, result, error
        self.finished = time.monotonic()
        self.current_tool = None
        self.live = None  # the closed session is not kept alive by the list of runs
        self.done.set()

    def report(self) -> dict[str, Any]:
        """What `task_output` answers about this run."""
        report: dict[str, Any] = {"session_id": self.session_id, "agent": self.agent, "status": self.state,
                                  "elapsed_seconds": round(self.elapsed(), 1)}
        if self.state == "running" and self.current_tool:
            report["current_tool"] = self.current_tool
        if self.result is not None:
            report["response"] = self.result.get("response") or ""
        if self.result is not None and isinstance(self.result.get("worktree"), dict):
            report["worktree"] = self.result["worktree"]
        if self.error is not None:
            report["error"] = self.error
        return report


class ModelSlots:
    """At most ``limit`` children's model requests at once; the rest wait in arrival order."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._semaphore = asyncio.Semaphore(limit)
        self.in_use = 0

    def limited(self, complete: Callable[..., Awaitable[Any]], run: ChildRun,
                notify: Callable[[ChildRun, str], Awaitable[None]]) -> Callable[..., Awaitable[Any]]:
        """``complete`` (a provider's) run only while holding a slot; ``notify`` is told `queued` when the run must
        wait for one and `running` once it has it."""

        async def complete_in_a_slot(*args: Any, **kwargs: Any) -> Any:
            waited = self._semaphore.locked()
            if waited:
                run.waiting_for_slot = True
                await notify(run, "queued")
            try:
                async with self._semaphore:
                    run.waiting_for_slot = False
                    if waited:
                        await notify(run, "running")
                    self.in_use += 1
                    try:
                        return await complete(*args, **kwargs)
                    finally:
                        self.in_use -= 1
            finally:
                run.waiting_for_slot = False

        return complete_in_a_slot


class SubAgentHub:
    """Shared by a top-level session and all its sub-agents (capability `session.subagents`)."""

    def __init__(self, max_parallel: int = DEFAULT_MAX_PARALLEL) -> None:
        self.slots = ModelSlots(max_parallel)
        self.runs: dict[str, ChildRun] = {}
        self.observers: list[ChildObserver] = []
        self.approval_lock = asyncio.Lock()

    @classmethod
    def for_settings(cls, merged_settings: dict[str, Any]) -> SubAgentHub:
        """The hub with settings' `subagents.max_parallel` (validated with the settings file, so always >= 1)."""
        section = merged_settings.get("subagents") or {}
        limit = section.get("max_parallel") if isinstance(section, dict) else None
        return cls(int(limit) if isinstance(limit, int) and limit >= 1 else DEFAULT_MAX_PARALLEL)

    def observe(self, observer: ChildObserver) -> None:
        self.observers.append(observer)

    async def publish(self, event: str, data: dict[str, Any], run: ChildRun) -> None:
        """Hand one child event to every observer; an observer that fails never breaks the child."""
        for observer in list(self.observers):
            try:
                await observer(event, data, run)
            except Exception:  # a front-end's translation must not stop the work
                pass

    def add(self, run: ChildRun) -> None:
        self.runs[run.session_id] = run

    def running(self, parent_session_id: str | None = None) -> list[ChildRun]:
        """Runs not finished yet, oldest first (only ``parent_session_id``'s children when given)."""
        return [run for run in self.runs.values()
                if run.running and (parent_session_id is None or run.parent_session_id == parent_session_id)]

    async def stop_background(self, parent_session_id: str) -> None:
        """Cancel ``parent_session_id``'s background children (its session ends); each saves what it did."""
        runs = [run for run in self.running(parent_session_id) if run.background and run.task is not None]
        for run in runs:
            if run.live is not None:  # stop its model request and tools the way a cancel does, then its task
                await run.live.coordinator.request_cancel(immediate=True)
        tasks = [run.task for run in runs if run.task is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    def children_of(self, parent_session_id: str) -> list[ChildRun]:
        return [run for run in self.runs.values() if run.parent_session_id == parent_session_id]
