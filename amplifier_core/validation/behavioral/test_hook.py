"""What every hook module must do: mount cleanly, answer events with valid HookResults, and survive empty or
malformed event data. Test names and fixtures are 2.0.2's; the module is mounted on ``coordinator`` for every
test (not only those that name ``hook_cleanup``), so the emits below reach its handlers."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from amplifier_core.models import HookResult

_VALID_ACTIONS = {"continue", "deny", "modify", "inject_context", "ask_user"}
_CODE_ERRORS = (AttributeError, TypeError)


class HookBehaviorTests:
    """Subclass in a hook module's tests; the amplifier pytest plugin provides ``hook_cleanup`` and
    ``coordinator``."""

    @pytest.fixture(autouse=True)
    def _hook_module_mounted(self, request: pytest.FixtureRequest, module_path: Any) -> Any:
        """Mount the module under test (when there is one) before every test, on the test's coordinator. A
        mount that raises fails the tests that name ``hook_cleanup``; the others still run (as on 2.0.2)."""
        if module_path is None:
            return None
        try:
            return request.getfixturevalue("hook_cleanup")
        except Exception:
            return None

    @pytest.mark.asyncio
    async def test_mount_succeeds(self, hook_cleanup: Any, coordinator: Any) -> None:
        assert hook_cleanup is None or callable(hook_cleanup)

    @pytest.mark.asyncio
    async def test_handler_returns_hook_result(self, coordinator: Any) -> None:
        result = await coordinator.hooks.emit("test:event", {"data": "test"})
        assert result is None or isinstance(result, HookResult), f"emit() gave {type(result).__name__}"

    @pytest.mark.asyncio
    async def test_hook_result_has_valid_action(self, coordinator: Any) -> None:
        result = await coordinator.hooks.emit("test:event", {"data": "test"})
        if result is not None:
            assert result.action in _VALID_ACTIONS, f"invalid action {result.action!r}"

    @pytest.mark.asyncio
    async def test_cleanup_is_callable_if_present(self, hook_cleanup: Any) -> None:
        assert hook_cleanup is None or callable(hook_cleanup), "mount() must return a cleanup callable or None"

    @pytest.mark.asyncio
    async def test_cleanup_does_not_raise(self, hook_cleanup: Any) -> None:
        if hook_cleanup is None:
            return
        try:
            outcome = hook_cleanup()
            if inspect.isawaitable(outcome):
                await outcome
        except Exception as error:
            pytest.fail(f"cleanup raised {type(error).__name__}: {error}")

    @pytest.mark.asyncio
    async def test_handler_does_not_crash_on_malformed_data(self, coordinator: Any) -> None:
        try:
            result = await coordinator.hooks.emit("test:event", None)
        except _CODE_ERRORS as error:
            pytest.fail(f"a handler crashed on data=None: {type(error).__name__}: {error}")
        except Exception:
            return
        assert result is None or isinstance(result, HookResult)

    @pytest.mark.asyncio
    async def test_handler_does_not_crash_on_empty_data(self, coordinator: Any) -> None:
        try:
            result = await coordinator.hooks.emit("test:event", {})
        except _CODE_ERRORS as error:
            pytest.fail(f"a handler crashed on empty data: {type(error).__name__}: {error}")
        except Exception:
            return
        assert result is None or isinstance(result, HookResult)


class TestHookBehavior(HookBehaviorTests):
    """Collected when this file is run directly against a hook module (``--module-path``)."""
