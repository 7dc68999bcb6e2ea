"""HookValidator: a hook module registers async ``(event, data) -> HookResult`` handlers on coordinator.hooks."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ..recording_coordinator import RecordingCoordinator
from .base import (
    ModuleValidator,
    ValidationCheck,
    ValidationResult,
    accepts,
    check_on_session_ready,
    import_module_from_path,
    is_async_callable,
)

# the names 2.0.2's module exposes (its validators' helpers are re-exported from each)
__all__ = [
    "HookValidator",
    "ValidationCheck",
    "ValidationResult",
    "check_on_session_ready",
    "import_module_from_path",
]


class HookValidator(ModuleValidator):
    module_type = "hook"
    mount_point = "hooks"
    protocol_name = "HookHandler"

    async def _inspect_mounted(
        self, coordinator: RecordingCoordinator, returned: Any, result: ValidationResult
    ) -> None:
        registrations = _registrations(coordinator)
        if not registrations:
            result.fail("protocol_compliance",
                        "mount() registered no handlers on coordinator.hooks (may be conditional on config)",
                        "warning")
            return
        events = sorted({registration.event for registration in registrations})
        result.ok("protocol_compliance",
                  f"Hooks registered via coordinator.hooks.register(): {len(registrations)} handler(s) for: "
                  f"{', '.join(events)}")
        for registration in registrations:
            label = f"handler {registration.name or '?'!r} for {registration.event!r}"
            handler = registration.handler
            if not callable(handler):
                result.fail("hook_call", f"{label} is not callable")
            elif not is_async_callable(handler):
                result.fail("hook_call", f"{label} must be async: `async def handler(event, data) -> HookResult`")
            elif not accepts(handler, "test:event", {}):
                result.fail("hook_call", f"{label} must take (event, data)")
            else:
                result.ok("hook_call", f"{label} has correct async signature (event, data)")
        if returned is not None and not callable(returned):
            result.fail("hook_cleanup",
                        f"mount() returned a {type(returned).__name__}; return a cleanup callable or None",
                        "warning")


def _registrations(coordinator: Any) -> list[Any]:
    """Every handler the module registered: the recording coordinator's list, else the registry's entries."""
    recorded = getattr(coordinator, "hook_registrations", None)
    if recorded is not None:
        return list(recorded)
    entries = getattr(coordinator.hooks, "_handlers", {})
    return [SimpleNamespace(event=event, handler=entry.handler, priority=entry.priority, name=entry.name)
            for event, handlers in entries.items() for entry in handlers]
