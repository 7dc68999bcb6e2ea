"""A coordinator that records what a module mounted and registered, usable outside any session.

Validation mounts a module on one to see what it provides, and ``testing.MockCoordinator`` builds on it. It
lives below both so that validation needs neither the test doubles nor a session (the loader runs
validators, and a session owns a loader: a real session here would close an import loop).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .coordinator import ModuleCoordinator
from .hooks import HookRegistry

__all__ = ["HookRegistration", "RecordingCoordinator", "RecordingHookRegistry", "SessionStandIn"]

_STAND_IN_PLAN: dict[str, Any] = {"session": {"orchestrator": "test-orchestrator", "context": "test-context"}}


@dataclass(frozen=True)
class HookRegistration:
    event: str
    handler: Any
    priority: int
    name: str | None


class RecordingHookRegistry(HookRegistry):
    """A real HookRegistry that also remembers every registration, so tests and validators can see which
    handlers a module registered."""

    def __init__(self) -> None:
        super().__init__()
        self.registrations: list[HookRegistration] = []

    def register(self, event: str, handler: Any, priority: int = 0, name: str | None = None) -> Callable[[], None]:
        label = name or getattr(handler, "__name__", None)
        self.registrations.append(HookRegistration(event, handler, priority, label))
        return super().register(event, handler, priority=priority, name=name)

    on = register


def stand_in_plan(session_config: dict[str, Any] | None = None) -> dict[str, Any]:
    """The minimal mount plan a coordinator outside a session reports as ``config``; ``session_config``
    entries are merged into its ``session`` section (e.g. ``{"injection_size_limit": 100}``)."""
    plan = copy.deepcopy(_STAND_IN_PLAN)
    plan["session"].update(session_config or {})
    return plan


@dataclass
class SessionStandIn:
    """What a coordinator reads of its session (id, parent id, config), for a module mounted outside any
    session: 2.0.2's MockCoordinator hands its coordinator the same three attributes."""

    session_id: str = "test-session"
    parent_id: str | None = None
    config: dict[str, Any] = field(default_factory=stand_in_plan)
    coordinator: Any = None
    loader: Any = None


class RecordingCoordinator(ModuleCoordinator):
    """A real ModuleCoordinator that records ``mount_history``/``unmount_history`` and hook registrations.

    Without a ``session`` it stands on a ``SessionStandIn`` (``session_config`` merged into its plan)."""

    def __init__(
        self,
        session: Any = None,
        approval_system: Any = None,
        display_system: Any = None,
        *,
        session_config: dict[str, Any] | None = None,
    ) -> None:
        stand_in = SessionStandIn(config=stand_in_plan(session_config)) if session is None else None
        super().__init__(session=session if stand_in is None else stand_in, approval_system=approval_system,
                         display_system=display_system)
        self._recording_hooks = RecordingHookRegistry()
        self._hooks = self._recording_hooks
        self.mount_points["hooks"] = self._hooks
        # make the session and its loader refer to this coordinator, so the object graph is coherent
        if stand_in is not None:
            stand_in.coordinator = self
        elif getattr(session, "coordinator", None) is not None:
            session.coordinator = self
            loader = getattr(session, "loader", None)
            if loader is not None and hasattr(loader, "coordinator"):
                loader.coordinator = self
        self.mount_history: list[dict[str, Any]] = []
        self.unmount_history: list[dict[str, Any]] = []

    @property
    def hook_registrations(self) -> list[HookRegistration]:
        return list(self._recording_hooks.registrations)

    async def mount(self, mount_point: str, module: Any, name: str | None = None) -> None:
        self.mount_history.append({"mount_point": mount_point, "module": module, "name": name})
        await super().mount(mount_point, module, name=name)

    async def unmount(self, mount_point: str, name: str | None = None) -> None:
        self.unmount_history.append({"mount_point": mount_point, "name": name})
        await super().unmount(mount_point, name=name)

    def get_mounted(self, mount_point: str) -> Any:
        """What is mounted at ``mount_point`` (the dict for providers/tools), as some contract docs use."""
        return self.get(mount_point)
