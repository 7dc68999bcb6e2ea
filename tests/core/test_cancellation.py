"""Behaviour of CancellationToken (reference section 11, section 13 items 30-32)."""

from __future__ import annotations

import asyncio

import pytest

from amplifier_core.cancellation import CancellationState, CancellationToken


def test_token_state_machine() -> None:
    token = CancellationToken()
    assert token.state is CancellationState.NONE and not token.is_cancelled
    assert token.request_graceful() is True
    assert token.is_graceful and token.is_cancelled and not token.is_immediate
    assert token.request_graceful() is False
    assert token.request_immediate() is True
    assert token.is_immediate and not token.is_graceful
    assert token.request_immediate() is False
    assert token.request_graceful() is False
    assert token.state is CancellationState.IMMEDIATE
    token.reset()
    assert token.state is CancellationState.NONE
    assert token.request_immediate() is True


def test_reset_clears_running_tools_but_keeps_children_and_callbacks() -> None:
    token, child = CancellationToken(), CancellationToken()
    token.register_child(child)
    token.on_cancel(lambda: asyncio.sleep(0))
    token.register_tool_start("c1", "bash")
    token.request_graceful()
    token.reset()
    assert token.running_tools == set()
    token.request_immediate()
    assert child.is_immediate
    assert len(token._callbacks) == 1


def test_running_tools_tracking_returns_copies() -> None:
    token = CancellationToken()
    token.register_tool_start("c1", "bash")
    token.register_tool_start("c2", "grep")
    assert token.running_tools == {"c1", "c2"}
    assert sorted(token.running_tool_names) == ["bash", "grep"]
    token.running_tools.add("c3")
    assert token.running_tools == {"c1", "c2"}
    token.register_tool_complete("c1")
    token.register_tool_complete("missing")
    assert token.running_tools == {"c2"} and token.running_tool_names == ["grep"]


def test_child_token_gets_parent_state_on_register_and_propagation() -> None:
    parent = CancellationToken()
    early = CancellationToken()
    parent.register_child(early)
    parent.request_graceful()
    assert early.is_graceful
    late = CancellationToken()
    parent.register_child(late)
    assert late.is_graceful
    parent.request_immediate()
    assert early.is_immediate and late.is_immediate
    removed = CancellationToken()
    parent.register_child(removed)
    assert removed.is_immediate
    parent.unregister_child(removed)
    parent.unregister_child(removed)


def test_unregistered_child_no_longer_receives_cancellation() -> None:
    parent, child = CancellationToken(), CancellationToken()
    parent.register_child(child)
    parent.unregister_child(child)
    parent.request_graceful()
    assert not child.is_cancelled


def test_token_is_hashable_by_identity() -> None:
    first, second = CancellationToken(), CancellationToken()
    assert first != second and len({first, second, first}) == 2


async def test_trigger_callbacks_survives_cancelled_error_reraises_keyboardinterrupt() -> None:
    token = CancellationToken()
    ran: list[str] = []

    async def cancelled() -> None:
        ran.append("cancelled")
        raise asyncio.CancelledError

    async def broken() -> None:
        ran.append("broken")
        raise RuntimeError("x")

    async def interrupted() -> None:
        ran.append("interrupt")
        raise KeyboardInterrupt

    async def last() -> None:
        ran.append("last")

    for callback in (cancelled, broken, interrupted, last):
        token.on_cancel(callback)
    with pytest.raises(KeyboardInterrupt):
        await token.trigger_callbacks()
    assert ran == ["cancelled", "broken", "interrupt", "last"]


async def test_trigger_callbacks_reraises_first_fatal_only() -> None:
    token = CancellationToken()

    async def exits() -> None:
        raise SystemExit(3)

    async def interrupts() -> None:
        raise KeyboardInterrupt

    token.on_cancel(exits)
    token.on_cancel(interrupts)
    with pytest.raises(SystemExit):
        await token.trigger_callbacks()


def test_request_cancellation_is_a_graceful_request() -> None:
    from amplifier_core import CancellationToken

    token = CancellationToken()
    assert token.request_cancellation() is None
    assert token.is_graceful and not token.is_immediate
    token.request_immediate()
    token.request_cancellation()
    assert token.is_immediate


def test_state_compares_equal_to_the_enum_and_to_its_string() -> None:
    from amplifier_core import CancellationState, CancellationToken

    token = CancellationToken()
    assert token.state == "none" and token.state == CancellationState.NONE and isinstance(token.state, str)
    token.request_immediate()
    assert token.state == "immediate" and f"{token.state}" == "immediate"
