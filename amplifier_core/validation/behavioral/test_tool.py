"""What every tool must do once mounted: describe itself and never crash on odd input."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_core.models import ToolResult


class ToolBehaviorTests:
    @pytest.mark.asyncio
    async def test_tool_has_name_description_and_execute(self, tool_module: Any) -> None:
        assert isinstance(tool_module.name, str) and tool_module.name
        assert isinstance(tool_module.description, str)
        assert callable(tool_module.execute)

    @pytest.mark.asyncio
    async def test_execute_returns_a_tool_result(self, tool_module: Any) -> None:
        result = await tool_module.execute({"_tool_call_id": "behavior-test-call"})
        assert isinstance(result, ToolResult)
        assert isinstance(result.success, bool)
        assert result.output is not None or result.error is not None or result.success

    @pytest.mark.asyncio
    async def test_execute_with_empty_input_does_not_raise_programming_errors(self, tool_module: Any) -> None:
        try:
            await tool_module.execute({})
        except (AttributeError, TypeError, KeyError) as error:
            pytest.fail(f"execute({{}}) raised {type(error).__name__}: {error}; return a failed ToolResult instead")


class TestToolBehavior(ToolBehaviorTests):
    """Collected when this file is run directly against a tool (``--module-path``)."""
