"""What every tool must do once mounted: describe itself and answer any input with a ToolResult rather than
crash. Test names and fixtures are 2.0.2's."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_core.models import ToolResult

_CODE_ERRORS = (AttributeError, TypeError, KeyError)


class ToolBehaviorTests:
    """Subclass in a tool module's tests; the amplifier pytest plugin provides ``tool_module``."""

    @pytest.mark.asyncio
    async def test_mount_succeeds(self, tool_module: Any) -> None:
        assert tool_module is not None

    @pytest.mark.asyncio
    async def test_tool_has_name(self, tool_module: Any) -> None:
        name = getattr(tool_module, "name", None)
        assert isinstance(name, str) and name, f"tool.name must be a non-empty string, got {name!r}"

    @pytest.mark.asyncio
    async def test_tool_has_description(self, tool_module: Any) -> None:
        description = getattr(tool_module, "description", None)
        assert isinstance(description, str) and description, "tool.description must be a non-empty string"

    @pytest.mark.asyncio
    async def test_tool_has_execute_method(self, tool_module: Any) -> None:
        assert callable(getattr(tool_module, "execute", None)), "the tool has no execute()"

    @pytest.mark.asyncio
    async def test_execute_returns_tool_result(self, tool_module: Any) -> None:
        result = await tool_module.execute({"_tool_call_id": "test-123"})
        assert isinstance(result, ToolResult), f"execute() must return ToolResult, got {type(result).__name__}"

    @pytest.mark.asyncio
    async def test_tool_result_has_required_fields(self, tool_module: Any) -> None:
        result = await tool_module.execute({"_tool_call_id": "test-456"})
        assert hasattr(result, "success"), "the result has no success field"
        assert hasattr(result, "output"), "the result has no output field"

    @pytest.mark.asyncio
    async def test_invalid_input_returns_error_result(self, tool_module: Any) -> None:
        """Bad input must not crash the tool with a code error; as in 2.0.2 that is all this test fails on
        (what execute() returns is test_execute_returns_tool_result's business)."""
        try:
            await tool_module.execute({})
        except _CODE_ERRORS as error:
            pytest.fail(f"execute({{}}) crashed: {type(error).__name__}: {error}; return a failed ToolResult")
        except Exception:
            return  # an explicit validation error is allowed

class TestToolBehavior(ToolBehaviorTests):
    """Collected when this file is run directly against a tool (``--module-path``)."""
