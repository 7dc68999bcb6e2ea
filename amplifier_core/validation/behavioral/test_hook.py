"""What every hook module must do: mount cleanly and answer events with valid HookResults."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_core.models import HookResult

_ACTIONS = {"continue", "deny", "modify", "inject_context", "ask_user"}


class HookBehaviorTests:
    @pytest.mark.asyncio
    async def test_mount_returns_none_or_a_cleanup_callable(self, hook_cleanup: Any) -> None:
        assert hook_cleanup is None or callable(hook_cleanup)

    @pytest.mark.asyncio
    async def test_emit_returns_a_hook_result_with_a_valid_action(self, hook_cleanup: Any, coordinator: Any) -> None:
        result = await coordinator.hooks.emit("test:event", {"value": 1})
        assert isinstance(result, HookResult)
        assert result.action in _ACTIONS

    @pytest.mark.asyncio
    async def test_registered_events_survive_empty_and_odd_data(self, hook_cleanup: Any, coordinator: Any) -> None:
        for event in coordinator.hooks.list_handlers():
            for data in ({}, {"tool_name": None, "tool_input": "not a dict", "result": 42}):
                result = await coordinator.hooks.emit(event, data)
                assert isinstance(result, HookResult)


class TestHookBehavior(HookBehaviorTests):
    """Collected when this file is run directly against a hook module (``--module-path``)."""
