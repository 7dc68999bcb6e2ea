"""Ctrl-C during a turn: the first press stops gracefully (after the running tool, or at once when only the
model is being waited on), the second stops immediately. The turn's task is cancelled, never the process,
so what was done is saved."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


class TurnInterrupted(Exception):
    """The user interrupted the turn; what was done is saved."""


async def run_interruptible(
    coordinator: Any, turn: Callable[[], Awaitable[T]], *, notify: Callable[[str], None] | None = None
) -> T:
    """Run ``turn()`` as a task; SIGINT requests cancellation through the coordinator instead of killing."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(turn())
    presses = 0
    pending: set[asyncio.Task[Any]] = set()
    say = notify or (lambda text: (sys.stderr.write(text + "\n"), sys.stderr.flush()))

    def on_sigint() -> None:
        nonlocal presses
        presses += 1
        waiting_on_model = not coordinator.cancellation.running_tools
        if presses == 1 and not waiting_on_model:
            say("Stopping after the running tool finishes (Ctrl-C again to stop now)...")
            _keep(pending, loop.create_task(coordinator.request_cancel(immediate=False)))
            return
        say("Stopping now...")
        _keep(pending, loop.create_task(coordinator.request_cancel(immediate=True)))
        task.cancel()

    installed = True
    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError, ValueError):
        installed = False
    try:
        return await task
    except asyncio.CancelledError:
        if presses:
            raise TurnInterrupted("interrupted") from None
        raise
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGINT)


def _keep(pending: set[asyncio.Task[Any]], task: asyncio.Task[Any]) -> None:
    """Hold a reference until the task finishes (the loop only keeps weak ones)."""
    pending.add(task)
    task.add_done_callback(pending.discard)
