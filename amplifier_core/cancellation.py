"""Cooperative cancellation: the app requests it, orchestrators and tools poll it. Graceful stops after the
running tools; immediate stops now."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum

logger = logging.getLogger(__name__)


__all__ = ["CancellationState", "CancellationToken"]


class CancellationState(StrEnum):
    """A ``str`` too: 2.0.2's top-level token reports its state as ``"none"``/``"graceful"``/``"immediate"``,
    its Python module as this enum; either comparison holds here."""

    NONE = "none"
    GRACEFUL = "graceful"
    IMMEDIATE = "immediate"


@dataclass(eq=False)
class CancellationToken:
    _state: CancellationState = CancellationState.NONE
    _running_tools: dict[str, str] = field(default_factory=dict)
    _children: list[CancellationToken] = field(default_factory=list)
    _callbacks: list[Callable[[], Awaitable[None]]] = field(default_factory=list)

    @property
    def state(self) -> CancellationState:
        return self._state

    @property
    def is_cancelled(self) -> bool:
        return self._state is not CancellationState.NONE

    @property
    def is_graceful(self) -> bool:
        return self._state is CancellationState.GRACEFUL

    @property
    def is_immediate(self) -> bool:
        return self._state is CancellationState.IMMEDIATE

    @property
    def running_tools(self) -> set[str]:
        return set(self._running_tools)

    @property
    def running_tool_names(self) -> list[str]:
        return list(self._running_tools.values())

    def request_graceful(self) -> bool:
        if self._state is not CancellationState.NONE:
            return False
        self._state = CancellationState.GRACEFUL
        for child in list(self._children):
            child.request_graceful()
        return True

    def request_cancellation(self) -> None:
        """Ask for a graceful stop (2.0.2's plain spelling of :meth:`request_graceful`)."""
        self.request_graceful()

    def request_immediate(self) -> bool:
        if self._state is CancellationState.IMMEDIATE:
            return False
        self._state = CancellationState.IMMEDIATE
        for child in list(self._children):
            child.request_immediate()
        return True

    def reset(self) -> None:
        self._state = CancellationState.NONE
        self._running_tools.clear()

    def register_tool_start(self, tool_call_id: str, tool_name: str) -> None:
        self._running_tools[tool_call_id] = tool_name

    def register_tool_complete(self, tool_call_id: str) -> None:
        self._running_tools.pop(tool_call_id, None)

    def register_child(self, child: CancellationToken) -> None:
        self._children.append(child)
        if self._state is CancellationState.IMMEDIATE:
            child.request_immediate()
        elif self._state is CancellationState.GRACEFUL:
            child.request_graceful()

    def unregister_child(self, child: CancellationToken) -> None:
        if child in self._children:
            self._children.remove(child)

    def on_cancel(self, callback: Callable[[], Awaitable[None]]) -> None:
        self._callbacks.append(callback)

    async def trigger_callbacks(self) -> None:
        """Run every callback; ordinary errors are logged, KeyboardInterrupt/SystemExit re-raised at the end."""
        fatal: BaseException | None = None
        for callback in list(self._callbacks):
            try:
                await callback()
            except asyncio.CancelledError:
                logger.warning("cancellation callback %r was cancelled", callback)
            except Exception:
                logger.exception("cancellation callback %r failed", callback)
            except BaseException as error:  # KeyboardInterrupt, SystemExit
                fatal = fatal or error
        if fatal is not None:
            raise fatal
