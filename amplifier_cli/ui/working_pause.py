"""Keeping the display hook's working indicator (capability ``ui.working_indicator``) off the app's own output.

The indicator redraws one terminal line while a turn runs. Whatever else the app prints during the turn (an
approval question, a hook's message, an interrupt notice) must not land inside that line, so the app's
approval and display systems are wrapped (PausingApproval, PausingDisplay) to pause the indicator while they
write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from amplifier_support.capability_names import UI_WORKING_INDICATOR


@contextmanager
def indicator_paused(coordinator: Any) -> Iterator[None]:
    """The indicator erased and held back while the block runs (nothing to do without one)."""
    indicator = coordinator.get_capability(UI_WORKING_INDICATOR) if coordinator is not None else None
    paused = getattr(indicator, "paused", None)
    if not callable(paused):
        yield
        return
    with paused():
        yield


def stop_indicator(coordinator: Any) -> None:
    """The turn is over (also when it failed or was interrupted): the line must be gone."""
    indicator = coordinator.get_capability(UI_WORKING_INDICATOR) if coordinator is not None else None
    stop = getattr(indicator, "stop", None)
    if callable(stop):
        stop()


def pausing(coordinator: Any, write: Callable[[str], None]) -> Callable[[str], None]:
    """``write`` with the indicator erased first (for interrupt notices)."""

    def paused_write(text: str) -> None:
        with indicator_paused(coordinator):
            write(text)

    return paused_write


class PausingApproval:
    """The app's approval system, with the indicator paused while the question is on screen. Made before the
    session (modules may keep the system they were mounted with), bound to its coordinator once it is open."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.coordinator: Any = None

    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        with indicator_paused(self.coordinator):
            return await self._inner.request_approval(prompt, options, timeout, default)

    def __getattr__(self, name: str) -> Any:
        if name == "_inner":  # not set yet (copy, pickle): no recursion
            raise AttributeError(name)
        return getattr(self._inner, name)


class PausingDisplay:
    """The app's display system, with the indicator erased before a message is printed (bound as above)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.coordinator: Any = None

    def show_message(self, message: str, level: str = "info", source: str = "hook") -> None:
        with indicator_paused(self.coordinator):
            self._inner.show_message(message, level=level, source=source)

    def __getattr__(self, name: str) -> Any:
        if name == "_inner":  # not set yet (copy, pickle): no recursion
            raise AttributeError(name)
        return getattr(self._inner, name)


def bind_pausing_systems(coordinator: Any) -> None:
    """The session is open: its pausing approval and display systems look up its indicator from now on."""
    for system in (coordinator.approval_system, coordinator.display_system):
        if isinstance(system, (PausingApproval, PausingDisplay)):
            system.coordinator = coordinator
