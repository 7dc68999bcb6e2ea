"""What every context manager must do: keep messages, clear them, and never lose history."""

from __future__ import annotations

import inspect
from typing import Any

import pytest


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class ContextBehaviorTests:
    @pytest.mark.asyncio
    async def test_added_message_is_returned_by_get_messages(self, context_module: Any) -> None:
        await context_module.add_message({"role": "user", "content": "hello"})
        messages = await context_module.get_messages()
        assert any(message.get("content") == "hello" for message in messages)

    @pytest.mark.asyncio
    async def test_clear_empties_the_messages(self, context_module: Any) -> None:
        await context_module.add_message({"role": "user", "content": "hello"})
        await context_module.clear()
        assert list(await context_module.get_messages()) == []

    @pytest.mark.asyncio
    async def test_get_messages_for_request_returns_a_list(self, context_module: Any) -> None:
        await context_module.add_message({"role": "user", "content": "hello"})
        assert isinstance(await context_module.get_messages_for_request(), list)

    @pytest.mark.asyncio
    async def test_compaction_hooks_when_present_behave(self, context_module: Any) -> None:
        if hasattr(context_module, "_should_compact"):
            assert isinstance(await _maybe_await(context_module._should_compact()), bool)
        if hasattr(context_module, "_compact_internal"):
            await _maybe_await(context_module._compact_internal())

    @pytest.mark.asyncio
    async def test_odd_message_does_not_crash_and_get_messages_is_never_none(self, context_module: Any) -> None:
        try:
            await context_module.add_message({"unexpected": True})
        except (ValueError, TypeError):
            pass  # rejecting a malformed message explicitly is fine; crashing otherwise is not
        assert await context_module.get_messages() is not None


class TestContextBehavior(ContextBehaviorTests):
    """Collected when this file is run directly against a context manager (``--module-path``)."""
