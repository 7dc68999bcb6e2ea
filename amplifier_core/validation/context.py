"""ContextValidator: the memory of a session must offer the five async methods the session and loops call."""

from __future__ import annotations

from typing import Any

from .base import (
    ModuleValidator,
    ValidationCheck,
    ValidationResult,
    check_async_method,
    check_on_session_ready,
    import_module_from_path,
)

# the names 2.0.2's module exposes (its validators' helpers are re-exported from each)
__all__ = [
    "ContextValidator",
    "ValidationCheck",
    "ValidationResult",
    "check_on_session_ready",
    "import_module_from_path",
]

_METHODS: tuple[tuple[str, tuple[Any, ...]], ...] = (
    ("add_message", ({},)),
    ("get_messages_for_request", ()),
    ("get_messages", ()),
    ("set_messages", ([],)),
    ("clear", ()),
)


class ContextValidator(ModuleValidator):
    module_type = "context"
    mount_point = "context"
    protocol_name = "ContextManager"
    required_members = ("add_message", "get_messages_for_request", "get_messages", "clear")

    def instance_label(self, name: str) -> str:
        return "Context"

    async def check_instance(self, name: str, instance: Any, result: ValidationResult) -> None:
        for method, arguments in _METHODS:
            result.add(check_async_method(instance, method, f"context_{method}", *arguments))
