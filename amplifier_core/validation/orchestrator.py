"""OrchestratorValidator: the loop's execute() must take what the session passes, coordinator included."""

from __future__ import annotations

import inspect
from typing import Any

from .base import (
    ModuleValidator,
    ValidationCheck,
    ValidationResult,
    accepts,
    check_async_method,
    check_on_session_ready,
    import_module_from_path,
)

# the names 2.0.2's module exposes (its validators' helpers are re-exported from each)
__all__ = [
    "OrchestratorValidator",
    "ValidationCheck",
    "ValidationResult",
    "check_on_session_ready",
    "import_module_from_path",
]

_SESSION_ARGUMENTS = ("prompt", "context", "providers", "tools", "hooks")


def _execute_passed(instance: Any) -> str:
    """2.0.2's wording of a passing orchestrator_execute check (it counts execute()'s parameters)."""
    try:
        count = len(inspect.signature(instance.execute).parameters)
    except (AttributeError, TypeError, ValueError):
        return "Orchestrator.execute() has correct async signature"
    return f"Orchestrator.execute() has correct async signature with {count} parameters"


class OrchestratorValidator(ModuleValidator):
    module_type = "orchestrator"
    mount_point = "orchestrator"
    protocol_name = "Orchestrator"
    required_members = ("execute",)

    def instance_label(self, name: str) -> str:
        return "Orchestrator"

    async def check_instance(self, name: str, instance: Any, result: ValidationResult) -> None:
        keywords = dict.fromkeys(_SESSION_ARGUMENTS)
        execute_check = check_async_method(instance, "execute", "orchestrator_execute", **keywords,
                                           passed_message=_execute_passed(instance))
        result.add(execute_check)
        if not execute_check.passed:
            return
        if accepts(instance.execute, **keywords, coordinator=None):
            result.ok("orchestrator_accepts_coordinator", "execute() accepts the coordinator= keyword")
        else:
            result.fail("orchestrator_accepts_coordinator",
                        "execute() must accept the coordinator= keyword the session always passes: add "
                        "`coordinator=None` or `**kwargs` to its signature")
