"""ToolValidator: a tool has a name, a description for the LLM, an async execute(input) and a schema."""

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
    "ToolValidator",
    "ValidationCheck",
    "ValidationResult",
    "check_on_session_ready",
    "import_module_from_path",
]


class ToolValidator(ModuleValidator):
    module_type = "tool"
    mount_point = "tools"
    protocol_name = "Tool"
    required_members = ("name", "description", "execute")

    async def check_instance(self, name: str, instance: Any, result: ValidationResult) -> None:
        try:
            tool_name = instance.name
        except Exception as error:
            result.fail("tool_name", f"Reading tool.name raised {type(error).__name__}: {error}")
        else:
            if isinstance(tool_name, str) and tool_name:
                result.ok("tool_name", f"Tool has name: '{tool_name}'")
            else:
                result.fail("tool_name", f"Tool.name should be a non-empty string, got {tool_name!r}")

        try:
            description = instance.description
        except Exception as error:
            result.fail("tool_description", f"Reading tool.description raised {type(error).__name__}: {error}")
        else:
            if isinstance(description, str) and description.strip():
                result.ok("tool_description", "Tool has description")
            else:
                result.fail("tool_description",
                            "Tool description should be a non-empty string: the LLM reads it to decide when to "
                            "call the tool", "warning")

        result.add(check_async_method(instance, "execute", "tool_execute", {},
                                      passed_message="Tool.execute() has correct async signature"))

        try:
            schema = getattr(instance, "input_schema", None)
        except Exception as error:
            result.fail("tool_input_schema", f"Reading tool.input_schema raised {type(error).__name__}: {error}")
            return
        if schema is None:
            result.ok("tool_input_schema", "No input_schema: the tool is offered with an empty schema {}")
        elif isinstance(schema, dict):
            result.ok("tool_input_schema", f"Tool.input_schema returns dict with {len(schema)} properties")
        else:
            result.fail("tool_input_schema", f"Tool.input_schema should return a dict, got {type(schema).__name__}")
