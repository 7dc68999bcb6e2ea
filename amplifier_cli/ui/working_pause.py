"""Keeping the display hook's working indicator (capability ``ui.working_indicator``) off the app's own output.

The indicator redraws one terminal line while a turn runs. Whatever else the app prints during the turn (an
approval question, a hook's message, an interrupt notice) must not land inside that line, so the app's
approval and display systems are wrapped to pause the indicator while they write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

INDICATOR_CAPABILITY = "ui.working_indicator"


@contextmanager
def indicator_paused(coordinator: Any) -> Iterator[None]:
    """The indicator erased and held back while the block runs (nothing to do without one)."""
    indicator = coordinator.get_capability(INDICATOR_CAPABILITY) if coordinator is not None else None
    paused = getattr(indicator, "paused", None)
    if not callable(paused):
        yield
        return
    with paused():
        yield


def stop_indicator(coordinator: Any) -> None:
    """The turn is over (also when it failed or was interrupted): the line must be gone."""
    indicator = coordinator.get_capability(INDICATOR_CAPABILITY) if coordinator is not None else None
    stop = getattr(indicator, "stop", None)
    if callable(stop):
        stop()


def pausing(coordinator: Any, write: Callable[[str], None]) -> Callable[[str], None]:
    """``write`` with the indicator erased first (for interrupt notices)."""

    def paused_write(text: str) -> None:
        with indicator_paused(coordinator):
            write(text)

    return paused_write


class _PausingApproval:
    """The app's approval system, with the indicator paused while the question is on screen."""

    def __init__(self, inner: Any, coordinator: Any) -> None:
        self._inner = inner
        self._coordinator = coordinator

    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        with indicator_paused(self._coordinator):
            return await self._inner.request_approval(prompt, options, timeout, default)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _PausingDisplay:
    """The app's display system, with the indicator erased before a message is printed."""

    def __init__(self, inner: Any, coordinator: Any) -> None:
        self._inner = inner
        self._coordinator = coordinator

    def show_message(self, message: str, level: str = "info", source: str = "hook") -> None:
        with indicator_paused(self._coordinator):
            self._inner.show_message(message, level=level, source=source)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def keep_indicator_clear(coordinator: Any) -> None:
    """Wrap the session's approval and display systems (once) when a working indicator is mounted."""
    if coordinator.get_capability(INDICATOR_CAPABILITY) is None:
        return
    if coordinator.approval_system is not None and not isinstance(coordinator.approval_system, _PausingApproval):
        coordinator.approval_system = _PausingApproval(coordinator.approval_system, coordinator)
    if coordinator.display_system is not None and not isinstance(coordinator.display_system, _PausingDisplay):
        coordinator.display_system = _PausingDisplay(coordinator.display_system, coordinator)
