"""Behaviour of HookRegistry (reference section 4, section 13 items 1-15)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from amplifier_core import ContextInjection, HookRegistry, HookResult
from amplifier_core.hooks import HookHandler

Handler = Callable[[str, dict[str, Any]], Awaitable[Any]]


def returning(result: HookResult | None, log: list[str] | None = None, label: str = "") -> Handler:
    async def handler(event: str, data: dict[str, Any]) -> HookResult | None:
        if log is not None:
            log.append(label)
        return result

    return handler


async def test_register_returns_unregister() -> None:
    hooks = HookRegistry()
    calls: list[str] = []
    unregister = hooks.register("e:x", returning(None, calls, "h"), name="h")
    assert hooks.list_handlers("e:x") == {"e:x": ["h"]}
    unregister()
    unregister()
    assert hooks.list_handlers("e:x")["e:x"] == []
    await hooks.emit("e:x", {})
    assert calls == []


async def test_unregister_removes_only_its_own_entry() -> None:
    hooks = HookRegistry()
    calls: list[str] = []
    handler = returning(None, calls, "same")
    first = hooks.register("e:x", handler, name="a")
    hooks.register("e:x", handler, name="b")
    first()
    assert hooks.list_handlers("e:x") == {"e:x": ["b"]}


async def test_on_is_alias_of_register() -> None:
    hooks = HookRegistry()
    calls: list[str] = []
    hooks.register("e:x", returning(None, calls, "registered"))
    hooks.on("e:x", returning(None, calls, "on"))
    await hooks.emit("e:x", {})
    assert calls == ["registered", "on"]


def test_handler_name_defaults_to_function_name() -> None:
    hooks = HookRegistry()

    async def my_audit_hook(event: str, data: dict[str, Any]) -> None:
        return None

    hooks.register("e:x", my_audit_hook)
    assert hooks.list_handlers() == {"e:x": ["my_audit_hook"]}


async def test_priority_lower_runs_first() -> None:
    hooks = HookRegistry()
    calls: list[str] = []
    hooks.register("e:x", returning(None, calls, "p10"), priority=10)
    hooks.register("e:x", returning(None, calls, "p5"), priority=5)
    hooks.register("e:x", returning(None, calls, "p5-second"), priority=5)
    hooks.register("e:x", returning(None, calls, "neg"), priority=-1)
    hooks.register("e:x", returning(None, calls, "p10-second"), priority=10)
    await hooks.emit("e:x", {})
    assert calls == ["neg", "p5", "p5-second", "p10", "p10-second"]


async def test_modify_chains_data() -> None:
    hooks = HookRegistry()
    seen_by_b: list[dict[str, Any]] = []

    async def a(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="modify", data={**data, "a": 1})

    async def b(event: str, data: dict[str, Any]) -> HookResult:
        seen_by_b.append(dict(data))
        return HookResult(action="modify", data={**data, "b": 2})

    hooks.register("e:x", a, priority=1)
    hooks.register("e:x", b, priority=2)
    result = await hooks.emit("e:x", {"orig": True})
    assert seen_by_b[0]["a"] == 1 and seen_by_b[0]["orig"] is True
    assert result.action == "continue"
    assert result.data["a"] == 1 and result.data["b"] == 2 and result.data["orig"] is True


async def test_modify_without_data_is_a_no_op() -> None:
    hooks = HookRegistry()
    hooks.register("e:x", returning(HookResult(action="modify")))
    result = await hooks.emit("e:x", {"k": "v"})
    assert result.action == "continue" and result.data["k"] == "v"


async def test_in_place_mutation_visible_to_later_handlers() -> None:
    hooks = HookRegistry()

    async def mutate(event: str, data: dict[str, Any]) -> None:
        data["touched"] = True

    seen: list[bool] = []

    async def observe(event: str, data: dict[str, Any]) -> None:
        seen.append(data.get("touched", False))

    hooks.register("e:x", mutate, priority=1)
    hooks.register("e:x", observe, priority=2)
    result = await hooks.emit("e:x", {})
    assert seen == [True] and result.data["touched"] is True


async def test_deny_short_circuits() -> None:
    hooks = HookRegistry()
    calls: list[str] = []
    hooks.register("e:x", returning(HookResult(action="modify", data={"m": 1}), calls, "modify"), priority=0)
    hooks.register("e:x", returning(HookResult(action="deny", reason="nope"), calls, "deny"), priority=1)
    hooks.register("e:x", returning(None, calls, "later"), priority=2)
    result = await hooks.emit("e:x", {})
    assert calls == ["modify", "deny"]
    assert result.action == "deny" and result.reason == "nope" and result.data is None


async def test_handler_exception_isolated() -> None:
    hooks = HookRegistry()

    async def boom(event: str, data: dict[str, Any]) -> HookResult:
        raise RuntimeError("handler bug")

    hooks.register("e:x", boom, priority=0)
    hooks.register("e:x", returning(HookResult(action="modify", data={"after": True})), priority=1)
    result = await hooks.emit("e:x", {})
    assert result.action == "continue" and result.data == {"after": True}


async def test_emit_no_handlers_returns_continue_with_original_data() -> None:
    hooks = HookRegistry()
    hooks.set_default_fields(session_id="s1", parent_id=None)
    data = {"k": "v"}
    result = await hooks.emit("nobody:listens", data)
    assert result.action == "continue"
    assert result.data == {"k": "v"}
    assert "session_id" not in result.data and "timestamp" not in result.data


async def test_default_fields_merged_and_overridable() -> None:
    hooks = HookRegistry()
    seen: list[dict[str, Any]] = []

    async def capture(event: str, data: dict[str, Any]) -> None:
        seen.append(dict(data))

    hooks.register("e:x", capture)
    hooks.set_default_fields(session_id="s1", parent_id="p0")
    await hooks.emit("e:x", {"session_id": "explicit", "k": 1})
    await hooks.emit("e:x", {})
    assert seen[0]["session_id"] == "explicit" and seen[0]["parent_id"] == "p0" and seen[0]["k"] == 1
    assert seen[1]["session_id"] == "s1" and seen[1]["parent_id"] == "p0"


async def test_set_default_fields_replaces_rather_than_merges() -> None:
    hooks = HookRegistry()
    seen: list[dict[str, Any]] = []

    async def capture(event: str, data: dict[str, Any]) -> None:
        seen.append(dict(data))

    hooks.register("e:x", capture)
    hooks.set_default_fields(session_id="s1", extra="old")
    hooks.set_default_fields(session_id="s2")
    await hooks.emit("e:x", {})
    assert seen[0]["session_id"] == "s2" and "extra" not in seen[0]


async def test_emit_does_not_mutate_callers_dict_when_handlers_exist() -> None:
    hooks = HookRegistry()
    hooks.set_default_fields(session_id="s1")
    hooks.register("e:x", returning(None))
    data = {"k": 1}
    await hooks.emit("e:x", data)
    assert data == {"k": 1}


async def test_timestamp_stamped_utc_and_not_overridable() -> None:
    hooks = HookRegistry()
    seen: list[dict[str, Any]] = []

    async def capture(event: str, data: dict[str, Any]) -> None:
        seen.append(dict(data))

    hooks.register("e:x", capture)
    result = await hooks.emit("e:x", {"timestamp": "forged"})
    stamp = seen[0]["timestamp"]
    assert stamp != "forged" and stamp.endswith("+00:00")
    assert datetime.fromisoformat(stamp).utcoffset().total_seconds() == 0
    assert result.data["timestamp"] == stamp


async def test_ask_user_beats_inject_context_regardless_of_order() -> None:
    ask = HookResult(action="ask_user", approval_prompt="ok?")
    inject = HookResult(action="inject_context", context_injection="note")
    for order in ((ask, inject), (inject, ask)):
        hooks = HookRegistry()
        for index, result in enumerate(order):
            hooks.register("e:x", returning(result), priority=index)
        outcome = await hooks.emit("e:x", {})
        assert outcome.action == "ask_user" and outcome.approval_prompt == "ok?"


async def test_first_ask_user_wins_and_later_handlers_still_run() -> None:
    hooks = HookRegistry()
    calls: list[str] = []
    hooks.register("e:x", returning(HookResult(action="ask_user", approval_prompt="first"), calls, "a"), priority=0)
    hooks.register("e:x", returning(HookResult(action="ask_user", approval_prompt="second"), calls, "b"), priority=1)
    hooks.register("e:x", returning(None, calls, "c"), priority=2)
    outcome = await hooks.emit("e:x", {})
    assert calls == ["a", "b", "c"] and outcome.approval_prompt == "first"


async def test_multiple_inject_context_merged_with_blank_line() -> None:
    hooks = HookRegistry()
    first = HookResult(action="inject_context", context_injection="one", context_injection_role="user",
                       ephemeral=True, suppress_output=True)
    second = HookResult(action="inject_context", context_injection="two", context_injection_role="assistant",
                        ephemeral=False, append_to_last_tool_result=True)
    hooks.register("e:x", returning(first), priority=0)
    hooks.register("e:x", returning(second), priority=1)
    merged = await hooks.emit("e:x", {})
    assert merged.action == "inject_context"
    assert merged.context_injection == "one\n\ntwo"
    assert merged.context_injection_role == "user" and merged.ephemeral is True
    assert merged.suppress_output is True
    assert merged.append_to_last_tool_result is True


async def test_single_inject_context_keeps_its_fields_and_gains_a_stamped_injection() -> None:
    hooks = HookRegistry()
    only = HookResult(action="inject_context", context_injection="solo", user_message="hi", ephemeral=True)
    hooks.register("e:x", returning(only), name="solo-hook")
    result = await hooks.emit("e:x", {})
    assert (result.context_injection, result.user_message, result.ephemeral) == ("solo", "hi", True)
    assert result.context_injections == [ContextInjection(content="solo", ephemeral=True, hook_name="solo-hook",
                                                          event="e:x")]


async def test_context_injections_list_is_merged_in_order_and_projected_onto_scalar_fields() -> None:
    hooks = HookRegistry()
    listed = HookResult(action="inject_context", context_injections=[
        ContextInjection(content="L1", role="user"), ContextInjection(content="L2", hook_name="spoofed", event="x")])
    scalar = HookResult(action="inject_context", context_injection="S", ephemeral=True)
    hooks.register("e:x", returning(listed), priority=1, name="lister")
    hooks.register("e:x", returning(scalar), priority=2, name="scalar")
    merged = await hooks.emit("e:x", {})
    assert [(i.content, i.role, i.hook_name, i.event) for i in merged.context_injections] == [
        ("L1", "user", "lister", "e:x"), ("L2", "system", "lister", "e:x"), ("S", "system", "scalar", "e:x")]
    assert merged.context_injection == "L1\n\nL2\n\nS"
    assert merged.context_injection_role == "user" and merged.ephemeral is True


async def test_context_injections_without_inject_context_action_are_ignored() -> None:
    hooks = HookRegistry()
    hooks.register("e:x", returning(HookResult(context_injections=[ContextInjection(content="no")])))
    result = await hooks.emit("e:x", {})
    assert result.action == "continue" and result.context_injections == []


async def test_empty_inject_context_is_ignored() -> None:
    hooks = HookRegistry()
    hooks.register("e:x", returning(HookResult(action="inject_context", context_injection="")))
    assert (await hooks.emit("e:x", {})).action == "continue"


async def test_deny_after_ask_user_wins() -> None:
    hooks = HookRegistry()
    hooks.register("e:x", returning(HookResult(action="ask_user")), priority=0)
    hooks.register("e:x", returning(HookResult(action="deny", reason="policy")), priority=1)
    outcome = await hooks.emit("e:x", {})
    assert outcome.action == "deny" and outcome.reason == "policy"


async def test_deny_before_others_stops_execution() -> None:
    hooks = HookRegistry()
    log: list[str] = []
    hooks.register("e:x", returning(HookResult(action="deny"), log, "deny"), priority=0)
    hooks.register("e:x", returning(HookResult(action="ask_user"), log, "ask"), priority=1)
    hooks.register("e:x", returning(HookResult(action="inject_context", context_injection="x"), log, "inj"),
                   priority=2)
    outcome = await hooks.emit("e:x", {})
    assert log == ["deny"] and outcome.action == "deny"


async def test_dict_answers_are_read_as_hook_results() -> None:
    hooks = HookRegistry()

    async def as_dict(event: str, data: dict[str, Any]) -> Any:
        return {"action": "deny", "reason": "said so in a dict"}

    hooks.register("e:x", returning(None), priority=0)
    hooks.register("e:x", as_dict, priority=1)
    outcome = await hooks.emit("e:x", {})
    assert outcome.action == "deny" and outcome.reason == "said so in a dict"


async def test_unreadable_answers_fail_closed() -> None:
    for answer in ({"action": "bogus"}, "yes", 42):
        hooks = HookRegistry()

        async def odd(event: str, data: dict[str, Any], answer: Any = answer) -> Any:
            return answer

        hooks.register("e:x", odd, name="odd")
        hooks.register("e:x", returning(HookResult(action="modify", data={"m": 1})), priority=5)
        outcome = await hooks.emit("e:x", {})
        assert outcome.action == "deny" and "odd" in outcome.reason


async def test_unregister_by_name_removes_only_the_most_recent_registration() -> None:
    hooks = HookRegistry()
    calls: list[str] = []
    old = hooks.register("e:x", returning(None, calls, "old"), name="shared")
    hooks.register("e:y", returning(None, calls, "other-event"), name="shared")
    latest = hooks.register("e:x", returning(None, calls, "latest"), name="shared")
    assert hooks.unregister("shared") == 1
    latest()  # its own handle no longer finds anything, and removes nothing else
    await hooks.emit("e:x", {})
    await hooks.emit("e:y", {})
    assert calls == ["old", "other-event"]
    old()
    assert hooks.unregister("shared", event="e:x") == 0 and hooks.unregister("shared") == 1
    assert hooks.unregister("nobody") == 0


async def test_cancelled_error_in_handler_does_not_stop_emit() -> None:
    hooks = HookRegistry()
    log: list[str] = []

    async def cancelled(event: str, data: dict[str, Any]) -> None:
        log.append("cancelled")
        raise asyncio.CancelledError

    hooks.register("e:x", returning(None, log, "first"), priority=0)
    hooks.register("e:x", cancelled, priority=1)
    hooks.register("e:x", returning(None, log, "third"), priority=2)
    outcome = await hooks.emit("e:x", {})
    assert log == ["first", "cancelled", "third"] and outcome.action == "continue"


async def test_emit_and_collect_collects_data_skips_none_and_timeouts() -> None:
    hooks = HookRegistry()
    hooks.set_default_fields(session_id="s1")
    received: list[dict[str, Any]] = []
    never = asyncio.Event()

    async def first(event: str, data: dict[str, Any]) -> HookResult:
        received.append(data)
        return HookResult(action="deny", data={"from": "first"})

    async def no_data(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult()

    async def slow(event: str, data: dict[str, Any]) -> HookResult:
        await never.wait()
        return HookResult(data={"from": "slow"})

    async def cancelled(event: str, data: dict[str, Any]) -> HookResult:
        raise asyncio.CancelledError

    async def broken(event: str, data: dict[str, Any]) -> HookResult:
        raise RuntimeError("x")

    async def plain(event: str, data: dict[str, Any]) -> str:
        return "not a result"

    async def last(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(data={"from": "last"})

    for priority, handler in enumerate((first, no_data, slow, cancelled, broken, plain, last)):
        hooks.register("collect:x", handler, priority=priority)
    original = {"q": 1}
    collected = await hooks.emit_and_collect("collect:x", original, timeout=0.05)
    assert collected == [{"from": "first"}, {"from": "last"}]
    assert received[0] == {"q": 1}
    assert "session_id" not in received[0] and "timestamp" not in received[0]


async def test_emit_and_collect_without_handlers_returns_empty_list() -> None:
    assert await HookRegistry().emit_and_collect("none:here", {"q": 1}) == []


def test_list_handlers_without_event_returns_every_event() -> None:
    hooks = HookRegistry()
    hooks.register("a:x", returning(None), name="one")
    hooks.register("b:y", returning(None), name="two")
    hooks.register("b:y", returning(None), name="three", priority=-5)
    assert hooks.list_handlers() == {"a:x": ["one"], "b:y": ["three", "two"]}
    assert hooks.list_handlers("c:z") == {"c:z": []}


def test_handler_entry_matches_upstream_constructor_and_orders_by_priority() -> None:
    async def handler(event: str, data: dict[str, Any]) -> None:
        return None

    entry = HookHandler(handler)
    assert (entry.handler, entry.priority, entry.name) == (handler, 0, None)
    assert sorted([HookHandler(handler, 10, "late"), HookHandler(handler, -1, "early")])[0].name == "early"


def test_registry_event_class_constants() -> None:
    assert HookRegistry.SESSION_START == "session:start"
    assert HookRegistry.SESSION_END == "session:end"
    assert HookRegistry.PROMPT_SUBMIT == "prompt:submit"
    assert HookRegistry.TOOL_PRE == "tool:pre"
    assert HookRegistry.TOOL_POST == "tool:post"
    assert HookRegistry.CONTEXT_PRE_COMPACT == "context:pre_compact"
    assert HookRegistry.ORCHESTRATOR_COMPLETE == "orchestrator:complete"
    assert HookRegistry.USER_NOTIFICATION == "user:notification"


def test_utc_timestamp_matches_clock_and_iso_format() -> None:
    from datetime import UTC, timedelta

    from amplifier_core.hooks import utc_timestamp

    before = datetime.now(UTC)
    stamp = datetime.fromisoformat(utc_timestamp())
    after = datetime.now(UTC)
    assert before - timedelta(milliseconds=1) <= stamp <= after + timedelta(milliseconds=1)
    assert stamp.utcoffset() == timedelta(0)


async def test_plain_function_handlers_run_like_async_ones() -> None:
    hooks = HookRegistry()
    seen: list[str] = []

    def sync_handler(event: str, data: dict[str, Any]) -> HookResult:
        seen.append(event)
        return HookResult(action="modify", data={**data, "touched": True})

    hooks.register("e:x", sync_handler)
    result = await hooks.emit("e:x", {})
    assert seen == ["e:x"] and result.data["touched"] is True
    assert await hooks.emit_and_collect("e:x", {}) == [{"touched": True}]


def test_hooks_module_exports_what_2_0_2_exports() -> None:
    import amplifier_core.hooks as hooks_module
    from amplifier_core.models import ContextInjection

    assert sorted(hooks_module.__all__) == ["ContextInjection", "HookRegistry", "HookResult"]
    assert hooks_module.ContextInjection is ContextInjection


def test_hook_registry_class_carries_2_0_2_s_class_name() -> None:
    import amplifier_core
    from amplifier_core.hooks import HookRegistry

    assert HookRegistry.__name__ == "RustHookRegistry"
    assert amplifier_core.RustHookRegistry is HookRegistry is amplifier_core.HookRegistry
