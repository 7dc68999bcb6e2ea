"""Stopping a running turn. A person's Ctrl-C: the first press stops gracefully (after the running tool, or at once
when only the model is being waited on), the second stops immediately. A front-end's cancel (ACP's
`session/cancel`) stops immediately. Either way the turn's task is cancelled, never the process, so what was done
is saved.

Sub-agents of the turn count as the parent's work: a `task` call whose children (at any depth) only wait on the
model is no tool to wait for, so one press stops them all at once; when some child runs a tool, the children that
wait on the model are stopped at once and the rest gracefully. Background children are not part of the turn."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from amplifier_support.capability_names import SESSION_SUBAGENTS

T = TypeVar("T")


class TurnInterrupted(Exception):
    """The user interrupted the turn; what was done is saved."""


class TurnControl:
    """One running turn and the two ways to stop it: ``press`` (a Ctrl-C) and ``cancel`` (at once)."""

    def __init__(self, coordinator: Any, notify: Callable[[str], None] | None = None) -> None:
        self.coordinator = coordinator
        self.presses = 0
        self.stopped = False  # stopped at once: the turn's task was cancelled
        self._task: asyncio.Future[Any] | None = None
        self._pending: set[asyncio.Task[Any]] = set()
        self._say = notify or (lambda text: (sys.stderr.write(text + "\n"), sys.stderr.flush()))

    def press(self) -> None:
        """A Ctrl-C: graceful while a tool runs (the first press), at once otherwise."""
        self.presses += 1
        children = self._turn_children()
        own_tools = self.coordinator.cancellation.running_tool_names
        if children:  # a `task` call is waiting on its children: they decide whether a tool runs
            own_tools = [name for name in own_tools if name != "task"]
        idle_children = _idle(children)
        waiting_on_model = not own_tools and len(idle_children) == len(children)
        if self.presses == 1 and not waiting_on_model:
            self._say("Stopping after the running tool finishes (Ctrl-C again to stop now)...")
            self._request(immediate=False)
            for run in idle_children:  # nothing of theirs to finish: their model requests stop now
                self._request(immediate=True, coordinator=run.live.coordinator)
            return
        self._say("Stopping now...")
        self.cancel()

    def cancel(self) -> None:
        """Stop at once: running tools are told to stop (as on a second Ctrl-C) and the model request abandoned."""
        self.stopped = True
        self._request(immediate=True)
        if self._task is not None:
            self._task.cancel()

    def _turn_children(self) -> list[Any]:
        """The running sub-agents of this turn (open ones, at any depth, not under a background child)."""
        hub = self.coordinator.get_capability(SESSION_SUBAGENTS)
        if hub is None:
            return []
        runs = hub.running()
        ours = {self.coordinator.session_id}
        found: list[Any] = []
        grew = True
        while grew:  # parents before children is not guaranteed: repeat until no run joins
            grew = False
            for run in runs:
                if run not in found and not run.background and run.parent_session_id in ours:
                    found.append(run)
                    ours.add(run.session_id)
                    grew = True
        return [run for run in found if run.live is not None]

    def _request(self, *, immediate: bool, coordinator: Any = None) -> None:
        coordinator = coordinator or self.coordinator
        task = asyncio.get_running_loop().create_task(coordinator.request_cancel(immediate=immediate))
        self._pending.add(task)  # the loop keeps only weak references
        task.add_done_callback(self._pending.discard)

    async def run(self, turn: Callable[[], Awaitable[T]], *, sigint: bool = False) -> T:
        """Run ``turn()`` as a task (with ``sigint``, SIGINT presses instead of killing); TurnInterrupted when it
        was stopped at once."""
        loop = asyncio.get_running_loop()
        self._task = asyncio.ensure_future(turn())
        installed = False
        if sigint:
            try:
                loop.add_signal_handler(signal.SIGINT, self.press)
                installed = True
            except (NotImplementedError, RuntimeError, ValueError):
                pass
        try:
            return await self._task
        except asyncio.CancelledError:
            if self.stopped or self.presses:
                raise TurnInterrupted("interrupted") from None
            raise
        finally:
            if installed:
                loop.remove_signal_handler(signal.SIGINT)


def _idle(children: list[Any]) -> list[Any]:
    """The children that only wait on the model, with no descendant running a tool either (stopping one at once
    would cut its descendants' tools short)."""
    by_id = {run.session_id: run for run in children}
    busy: set[str] = set()
    for run in children:
        if not run.waiting_on_model():
            current: Any = run
            while current is not None and current.session_id not in busy:  # it and every ancestor
                busy.add(current.session_id)
                current = by_id.get(current.parent_session_id)
    return [run for run in children if run.session_id not in busy]


async def run_interruptible(
    coordinator: Any, turn: Callable[[], Awaitable[T]], *, notify: Callable[[str], None] | None = None
) -> T:
    """Run ``turn()`` as a task; SIGINT requests cancellation through the coordinator instead of killing."""
    return await TurnControl(coordinator, notify).run(turn, sigint=True)
