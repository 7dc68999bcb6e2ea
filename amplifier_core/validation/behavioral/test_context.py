"""What every context manager must do: keep messages, return them for requests, clear them, and survive odd
input. Test names and fixtures are 2.0.2's, so a module's suite that subclasses this runs the same tests."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_core.validation.behavioral._calls import arguments_for, call_maybe_async

_CODE_ERRORS = (AttributeError, TypeError)


class ContextBehaviorTests:
    """Subclass in a context module's tests; the amplifier pytest plugin provides ``context_module``."""

    @pytest.mark.asyncio
    async def test_mount_succeeds(self, context_module: Any) -> None:
        assert context_module is not None

    @pytest.mark.asyncio
    async def test_context_has_required_methods(self, context_module: Any) -> None:
        for method in ("add_message", "get_messages", "clear"):
            assert callable(getattr(context_module, method, None)), f"the context manager has no {method}()"

    @pytest.mark.asyncio
    async def test_message_round_trip(self, context_module: Any) -> None:
        await context_module.add_message({"role": "user", "content": "Hello"})
        messages = await context_module.get_messages()
        assert any(message.get("content") == "Hello" for message in messages), "an added message was lost"

    @pytest.mark.asyncio
    async def test_multiple_messages(self, context_module: Any) -> None:
        for role, content in (("user", "First"), ("assistant", "Response"), ("user", "Second")):
            await context_module.add_message({"role": role, "content": content})
        assert len(await context_module.get_messages()) >= 3

    @pytest.mark.asyncio
    async def test_clear_removes_messages(self, context_module: Any) -> None:
        await context_module.add_message({"role": "user", "content": "Test"})
        await context_module.clear()
        assert len(await context_module.get_messages()) == 0, "clear() left messages behind"

    @pytest.mark.asyncio
    async def test_get_messages_for_request_returns_messages(self, context_module: Any) -> None:
        await context_module.add_message({"role": "user", "content": "Test"})
        if hasattr(context_module, "get_messages_for_request"):
            messages = await context_module.get_messages_for_request()
            assert isinstance(messages, list) and messages, "get_messages_for_request() must return the messages"

    @pytest.mark.asyncio
    async def test_internal_should_compact_returns_bool(self, context_module: Any) -> None:
        """A private hook, so it is called only with the arguments its signature asks for ((), or
        (token_count, budget)); one that wants anything else is not called at all."""
        method = getattr(context_module, "_should_compact", None)
        if method is None:
            return
        arguments = arguments_for(method)
        if arguments is None:
            return
        assert isinstance(await call_maybe_async(method, *arguments), bool), "_should_compact() must return a bool"

    @pytest.mark.asyncio
    async def test_internal_compact_does_not_crash(self, context_module: Any) -> None:
        method = getattr(context_module, "_compact_internal", None)
        if method is None or arguments_for(method) != ():
            return
        try:
            await call_maybe_async(method)
        except _CODE_ERRORS as error:
            pytest.fail(f"_compact_internal() crashed: {type(error).__name__}: {error}")
        except Exception:
            pass  # a deliberate refusal is allowed

    @pytest.mark.asyncio
    async def test_add_invalid_message_does_not_crash(self, context_module: Any) -> None:
        try:
            await context_module.add_message({})
        except _CODE_ERRORS as error:
            pytest.fail(f"add_message({{}}) crashed: {type(error).__name__}: {error}; reject it with a clear error")
        except Exception:
            pass  # rejecting a malformed message explicitly is fine

    @pytest.mark.asyncio
    async def test_get_messages_never_returns_none(self, context_module: Any) -> None:
        messages = await context_module.get_messages()
        assert isinstance(messages, list), f"get_messages() must return a list, got {type(messages).__name__}"


class TestContextBehavior(ContextBehaviorTests):
    """Collected when this file is run directly against a context manager (``--module-path``)."""
