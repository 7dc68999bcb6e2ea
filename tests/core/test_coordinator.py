"""Behaviour of ModuleCoordinator (reference section 5, section 13 items 16-29)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from amplifier_core import HookRegistry, HookResult, ModuleCoordinator
from amplifier_core.approval import ApprovalTimeoutError


class FakeSession:
    """Only what the coordinator reads lazily."""

    def __init__(self, session_config: dict[str, Any] | None = None) -> None:
        self.session_id = "sess-1"
        self.parent_id = "parent-0"
        self.config = {"session": session_config or {}}


class RecordingContext:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def add_message(self, message: dict[str, Any]) -> None:
        self.messages.append(message)


class ScriptedApproval:
    def __init__(self, answer: str | BaseException) -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []

    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        self.requests.append({"prompt": prompt, "options": options, "timeout": timeout, "default": default})
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


class RecordingDisplay:
    def __init__(self) -> None:
        self.shown: list[dict[str, Any]] = []

    def show_message(self, message: str, level: str, source: str = "hook") -> None:
        self.shown.append({"message": message, "level": level, "source": source})


def make_coordinator(**session_config: Any) -> ModuleCoordinator:
    return ModuleCoordinator(session=FakeSession(session_config))


async def with_context(coordinator: ModuleCoordinator) -> RecordingContext:
    context = RecordingContext()
    await coordinator.mount("context", context)
    return context


# -- mounting ------------------------------------------------------------------------------------------

def test_initial_mount_points_and_hooks_identity() -> None:
    coordinator = make_coordinator()
    assert set(coordinator.mount_points) == {
        "orchestrator", "providers", "tools", "context", "hooks", "module-source-resolver"}
    assert isinstance(coordinator.hooks, HookRegistry)
    assert coordinator.mount_points["hooks"] is coordinator.hooks
    assert coordinator.get("hooks") is coordinator.hooks
    assert coordinator.get("providers") == {} and coordinator.get("orchestrator") is None


def test_session_properties_read_through() -> None:
    coordinator = make_coordinator(injection_budget_per_turn=50, injection_size_limit=100)
    assert coordinator.session_id == "sess-1" and coordinator.parent_id == "parent-0"
    assert coordinator.injection_budget_per_turn == 50 and coordinator.injection_size_limit == 100
    assert make_coordinator().injection_size_limit is None
    assert make_coordinator().injection_budget_per_turn is None
    bare = ModuleCoordinator(session=SimpleNamespace(session_id="only-id"))
    assert bare.session_id == "only-id" and bare.injection_size_limit is None


async def test_mount_unknown_point_raises_value_error() -> None:
    coordinator = make_coordinator()
    with pytest.raises(ValueError, match=r"Unknown mount point: widgets"):
        await coordinator.mount("widgets", object())
    with pytest.raises(ValueError, match=r"Unknown mount point: agents"):
        await coordinator.mount("agents", object(), name="a")
    with pytest.raises(ValueError, match=r"coordinator.hooks"):
        await coordinator.mount("hooks", object())
    tool = SimpleNamespace(name="grep")
    await coordinator.mount("tools", tool)
    assert coordinator.get("tools", "grep") is tool
    with pytest.raises(ValueError, match=r"Name required for providers"):
        await coordinator.mount("providers", object())


async def test_mount_single_slot_replaces_and_named_slot_overwrites() -> None:
    coordinator = make_coordinator()
    first, second = object(), object()
    await coordinator.mount("orchestrator", first)
    await coordinator.mount("orchestrator", second)
    assert coordinator.get("orchestrator") is second
    await coordinator.mount("providers", first, name="p")
    await coordinator.mount("providers", second, name="p")
    assert coordinator.get("providers") == {"p": second}


async def test_get_multi_mount_returns_dict_or_item() -> None:
    coordinator = make_coordinator()
    provider = SimpleNamespace(name="mock")
    await coordinator.mount("providers", provider)
    assert coordinator.get("providers") == {"mock": provider}
    assert coordinator.get("providers", "mock") is provider
    assert coordinator.get("providers", "absent") is None
    with pytest.raises(ValueError, match=r"Name required to unmount from providers"):
        await coordinator.unmount("providers")
    await coordinator.unmount("providers", "absent")
    await coordinator.unmount("providers", "mock")
    assert coordinator.get("providers") == {}


async def test_unmount_single_slot_and_unknown_point() -> None:
    coordinator = make_coordinator()
    await coordinator.mount("context", object())
    await coordinator.unmount("context")
    assert coordinator.get("context") is None
    await coordinator.unmount("hooks")
    with pytest.raises(ValueError, match=r"Unknown mount point: nowhere"):
        await coordinator.unmount("nowhere")
    with pytest.raises(ValueError, match=r"Unknown mount point: nowhere"):
        coordinator.get("nowhere")


# -- capabilities and contributions -------------------------------------------------------------------

def test_capability_register_get_missing_none() -> None:
    coordinator = make_coordinator()
    assert coordinator.get_capability("session.spawn") is None
    coordinator.register_capability("session.spawn", "first")
    coordinator.register_capability("session.spawn", "second")
    assert coordinator.get_capability("session.spawn") == "second"


async def test_contributions_order_none_filtered_sync_async() -> None:
    coordinator = make_coordinator()

    async def async_events() -> list[str]:
        return ["a:b"]

    def returns_coroutine():
        return async_events()

    coordinator.register_contributor("observability.events", "sync", lambda: {"kind": "dict"})
    coordinator.register_contributor("observability.events", "none", lambda: None)
    coordinator.register_contributor("observability.events", "async", async_events)
    coordinator.register_contributor("observability.events", "coro", returns_coroutine)
    coordinator.register_contributor("observability.events", "sync", lambda: "text")
    assert await coordinator.collect_contributions("observability.events") == [
        {"kind": "dict"}, ["a:b"], ["a:b"], "text"]
    assert await coordinator.collect_contributions("unknown.channel") == []
    assert [item["name"] for item in coordinator.channels["observability.events"]] == [
        "sync", "none", "async", "coro", "sync"]


async def test_contributor_exception_skipped_cancelled_error_stops() -> None:
    coordinator = make_coordinator()
    called: list[str] = []

    def broken() -> None:
        called.append("broken")
        raise RuntimeError("x")

    async def cancelled() -> None:
        called.append("cancelled")
        raise asyncio.CancelledError

    def later() -> str:
        called.append("later")
        return "never"

    coordinator.register_contributor("ch", "first", lambda: 1)
    coordinator.register_contributor("ch", "broken", broken)
    coordinator.register_contributor("ch", "second", lambda: 2)
    coordinator.register_contributor("ch", "cancelled", cancelled)
    coordinator.register_contributor("ch", "later", later)
    assert await coordinator.collect_contributions("ch") == [1, 2]
    assert called == ["broken", "cancelled"]


# -- cleanup -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fatal", [KeyboardInterrupt, SystemExit, asyncio.CancelledError])
async def test_cleanup_runs_lifo_and_reraises_fatal_after_all(fatal: type[BaseException]) -> None:
    coordinator = make_coordinator()
    ran: list[str] = []

    def first() -> None:
        ran.append("first")

    async def second() -> None:
        ran.append("second")
        raise RuntimeError("ordinary failure")

    def third() -> None:
        ran.append("third")
        raise fatal()

    async def fourth_async() -> None:
        ran.append("fourth")

    def fifth_returns_coroutine():
        ran.append("fifth")
        return fourth_async()

    for function in (first, second, "not callable", third, fifth_returns_coroutine):
        coordinator.register_cleanup(function)
    with pytest.raises(fatal):
        await coordinator.cleanup()
    assert ran == ["fifth", "fourth", "third", "second", "first"]


async def test_cleanup_with_only_ordinary_failures_does_not_raise() -> None:
    coordinator = make_coordinator()
    ran: list[int] = []

    def broken() -> None:
        ran.append(1)
        raise ValueError("x")

    coordinator.register_cleanup(broken)
    coordinator.register_cleanup(lambda: ran.append(2))
    await coordinator.cleanup()
    assert ran == [2, 1]


# -- cancellation --------------------------------------------------------------------------------------

async def test_request_cancel_emits_once_and_triggers_callbacks() -> None:
    coordinator = make_coordinator()
    emitted: list[dict[str, Any]] = []
    triggered: list[int] = []

    async def capture(event: str, data: dict[str, Any]) -> None:
        emitted.append(data)

    async def on_cancel() -> None:
        triggered.append(1)

    coordinator.hooks.register("cancel:requested", capture)
    coordinator.cancellation.on_cancel(on_cancel)
    coordinator.cancellation.register_tool_start("call-1", "bash")
    await coordinator.request_cancel()
    await coordinator.request_cancel()
    assert len(emitted) == 1 and len(triggered) == 1
    assert emitted[0]["level"] == "graceful"
    assert list(emitted[0]["running_tools"]) == ["call-1"]
    assert emitted[0]["running_tool_names"] == ["bash"]
    await coordinator.request_cancel(immediate=True)
    assert [item["level"] for item in emitted] == ["graceful", "immediate"]
    assert len(triggered) == 2
    await coordinator.request_cancel(immediate=True)
    assert len(emitted) == 2


async def test_reset_turn_zeroes_injections_but_keeps_cancellation() -> None:
    coordinator = make_coordinator(injection_budget_per_turn=1)
    await coordinator.request_cancel()
    await coordinator.process_hook_result(
        HookResult(action="inject_context", context_injection="x" * 40, ephemeral=True), "e:x")
    assert coordinator._current_turn_injections == 10
    coordinator.reset_turn()
    assert coordinator._current_turn_injections == 0
    assert coordinator.cancellation.is_graceful


# -- process_hook_result: injection ------------------------------------------------------------------

async def test_process_hook_result_injection_size_limit_raises() -> None:
    coordinator = make_coordinator(injection_size_limit=10)
    context = await with_context(coordinator)
    with pytest.raises(ValueError, match=r"Context injection exceeds 10 characters"):
        await coordinator.process_hook_result(
            HookResult(action="inject_context", context_injection="x" * 11), "tool:post", "big-hook")
    assert context.messages == []
    await coordinator.process_hook_result(
        HookResult(action="inject_context", context_injection="x" * 10), "tool:post", "ok-hook")
    assert len(context.messages) == 1


async def test_injection_budget_exceeded_only_warns(caplog: pytest.LogCaptureFixture) -> None:
    coordinator = make_coordinator(injection_budget_per_turn=5)
    context = await with_context(coordinator)
    await coordinator.process_hook_result(
        HookResult(action="inject_context", context_injection="y" * 40), "tool:post", "chatty")
    assert len(context.messages) == 1
    assert "budget" in caplog.text and "chatty" in caplog.text


async def test_ephemeral_injection_not_stored_but_counted() -> None:
    coordinator = make_coordinator()
    context = await with_context(coordinator)
    await coordinator.process_hook_result(
        HookResult(action="inject_context", context_injection="z" * 80, ephemeral=True), "tool:post")
    assert context.messages == []
    assert coordinator._current_turn_injections == 20


async def test_injected_message_has_provenance_metadata() -> None:
    coordinator = make_coordinator()
    context = await with_context(coordinator)
    result = HookResult(action="inject_context", context_injection="lint: 2 errors\x07",
                        context_injection_role="user")
    returned = await coordinator.process_hook_result(result, "tool:post", "linter")
    assert returned.action == "continue" and returned.context_injections == []  # nothing left to send
    message = context.messages[0]
    assert message["role"] == "user" and message["content"] == "lint: 2 errors"
    metadata = message["metadata"]
    assert (metadata["source"], metadata["hook_name"], metadata["event"]) == ("hook", "linter", "tool:post")
    assert metadata["timestamp"].endswith("+00:00")


async def test_injection_without_context_mounted_is_not_an_error() -> None:
    coordinator = make_coordinator()
    result = HookResult(action="inject_context", context_injection="note")
    assert (await coordinator.process_hook_result(result, "tool:post")).action == "continue"


async def test_durable_items_are_stored_and_ephemeral_ones_handed_back_as_the_residual() -> None:
    from amplifier_core import ContextInjection

    coordinator = make_coordinator()
    context = await with_context(coordinator)
    result = HookResult(action="inject_context", reason="kept", suppress_output=True, context_injections=[
        ContextInjection(content="durable", role="assistant", hook_name="h1", event="tool:post"),
        ContextInjection(content="reminder", role="user", ephemeral=True, append_to_last_tool_result=True,
                         hook_name="h2", event="tool:post"),
    ])
    residual = await coordinator.process_hook_result(result, "tool:post")
    assert [(m["content"], m["role"], m["metadata"]["hook_name"]) for m in context.messages] == [
        ("durable", "assistant", "h1")]
    assert context.messages[0]["metadata"]["persisted"] is True
    assert (residual.action, residual.context_injection, residual.context_injection_role) == (
        "inject_context", "reminder", "user")
    assert residual.ephemeral and residual.append_to_last_tool_result
    assert [item.hook_name for item in residual.context_injections] == ["h2"]
    assert (residual.reason, residual.suppress_output) == ("kept", True)


async def test_an_oversized_later_item_prevents_any_write_or_budget_charge() -> None:
    from amplifier_core import ContextInjection

    coordinator = make_coordinator(injection_size_limit=10)
    context = await with_context(coordinator)
    result = HookResult(action="inject_context", context_injections=[
        ContextInjection(content="valid"), ContextInjection(content="x" * 11, ephemeral=True)])
    with pytest.raises(ValueError, match="exceeds 10 characters"):
        await coordinator.process_hook_result(result, "tool:post")
    assert context.messages == [] and coordinator._current_turn_injections == 0


# -- process_hook_result: approvals -------------------------------------------------------------------

async def test_ask_user_without_approval_system_denies() -> None:
    coordinator = make_coordinator()
    outcome = await coordinator.process_hook_result(HookResult(action="ask_user"), "tool:pre", "gate")
    assert outcome.action == "deny" and outcome.reason == "No approval system available"


async def test_ask_user_passes_prompt_options_timeout_and_default_with_fallbacks() -> None:
    coordinator = make_coordinator()
    approval = ScriptedApproval("Allow")
    coordinator.approval_system = approval
    await coordinator.process_hook_result(HookResult(action="ask_user"), "tool:pre")
    await coordinator.process_hook_result(
        HookResult(action="ask_user", approval_prompt="Run rm?", approval_options=["Allow once", "Deny"],
                   approval_timeout=5, approval_default="allow"), "tool:pre")
    assert approval.requests == [
        {"prompt": "Allow this operation?", "options": ["Allow", "Deny"], "timeout": 300.0, "default": "deny"},
        {"prompt": "Run rm?", "options": ["Allow once", "Deny"], "timeout": 5, "default": "allow"},
    ]


async def test_ask_user_deny_choice_denies() -> None:
    coordinator = make_coordinator()
    coordinator.approval_system = ScriptedApproval("Deny")
    outcome = await coordinator.process_hook_result(
        HookResult(action="ask_user", approval_prompt="Delete repo?"), "tool:pre")
    assert outcome.action == "deny" and outcome.reason == "User denied: Delete repo?"


@pytest.mark.parametrize("choice", ["Allow", "allow once", "Allow Once", "ALLOW ALWAYS", " allow "])
async def test_ask_user_allow_once_continues(choice: str) -> None:
    coordinator = make_coordinator()
    coordinator.approval_system = ScriptedApproval(choice)
    outcome = await coordinator.process_hook_result(HookResult(action="ask_user"), "tool:pre")
    assert outcome.action == "continue"


@pytest.mark.parametrize("choice", ["yes", "", "Allowed?", "Maybe", "deny"])
async def test_ask_user_unrecognised_choice_fails_closed(choice: str) -> None:
    coordinator = make_coordinator()
    coordinator.approval_system = ScriptedApproval(choice)
    outcome = await coordinator.process_hook_result(HookResult(action="ask_user", approval_prompt="p"), "tool:pre")
    assert outcome.action == "deny" and outcome.reason == "User denied: p"


async def test_ask_user_denial_reason_truncates_long_prompt() -> None:
    coordinator = make_coordinator()
    coordinator.approval_system = ScriptedApproval("Deny")
    outcome = await coordinator.process_hook_result(
        HookResult(action="ask_user", approval_prompt="p" * 500), "tool:pre")
    assert len(outcome.reason) < 250 and outcome.reason.startswith("User denied: ppp")


async def test_ask_user_timeout_uses_default() -> None:
    coordinator = make_coordinator()
    coordinator.approval_system = ScriptedApproval(ApprovalTimeoutError())
    denied = await coordinator.process_hook_result(
        HookResult(action="ask_user", approval_prompt="Run?", approval_default="deny"), "tool:pre")
    assert denied.action == "deny" and denied.reason == "Approval timeout - denied by default: Run?"
    allowed = await coordinator.process_hook_result(
        HookResult(action="ask_user", approval_prompt="Run?", approval_default="allow"), "tool:pre")
    assert allowed.action == "continue"


async def test_ask_user_other_approval_errors_propagate() -> None:
    coordinator = make_coordinator()
    coordinator.approval_system = ScriptedApproval(RuntimeError("terminal gone"))
    with pytest.raises(RuntimeError, match=r"terminal gone"):
        await coordinator.process_hook_result(HookResult(action="ask_user"), "tool:pre")


async def test_ask_user_skips_user_message() -> None:
    coordinator = make_coordinator()
    display = RecordingDisplay()
    coordinator.display_system = display
    coordinator.approval_system = ScriptedApproval("Allow")
    await coordinator.process_hook_result(HookResult(action="ask_user", user_message="hello"), "tool:pre")
    assert display.shown == []


# -- process_hook_result: user messages ---------------------------------------------------------------

async def test_user_message_routed_to_display_with_source_prefix(caplog: pytest.LogCaptureFixture) -> None:
    coordinator = make_coordinator()
    display = RecordingDisplay()
    coordinator.display_system = display
    await coordinator.process_hook_result(
        HookResult(user_message="3 files changed", user_message_level="warning"), "tool:post", "git-hook")
    await coordinator.process_hook_result(
        HookResult(user_message="hi", user_message_source="custom"), "tool:post", "git-hook")
    assert display.shown == [
        {"message": "3 files changed", "level": "warning", "source": "hook:git-hook"},
        {"message": "hi", "level": "info", "source": "hook:custom"},
    ]
    logged_only = make_coordinator()
    with caplog.at_level("INFO"):
        await logged_only.process_hook_result(HookResult(user_message="only logged"), "tool:post", "h")
    assert "only logged" in caplog.text


async def test_user_message_shown_alongside_injection() -> None:
    coordinator = make_coordinator()
    display = RecordingDisplay()
    coordinator.display_system = display
    context = await with_context(coordinator)
    await coordinator.process_hook_result(
        HookResult(action="inject_context", context_injection="c", user_message="m"), "tool:post", "h")
    assert len(context.messages) == 1 and display.shown[0]["message"] == "m"


def test_loader_property_prefers_explicit_then_session() -> None:
    session = FakeSession()
    session.loader = "session-loader"
    coordinator = ModuleCoordinator(session=session)
    assert coordinator.loader == "session-loader"
    coordinator.loader = "explicit"
    assert coordinator.loader == "explicit"


async def test_to_dict_summarises_mounts() -> None:
    coordinator = make_coordinator()
    await coordinator.mount("tools", SimpleNamespace(name="b"))
    await coordinator.mount("tools", SimpleNamespace(name="a"))
    coordinator.register_capability("session.spawn", object())
    # exactly 2.0.2's keys, in its order, names in mount order (upstream tests compare the whole dict)
    assert coordinator.to_dict() == {
        "tools": ["b", "a"], "providers": [], "has_orchestrator": False, "has_context": False,
        "capabilities": ["session.spawn"], "has_approval_provider": coordinator.approval_system is not None,
        "has_display_service": coordinator.display_system is not None,
    }
    assert list(coordinator.to_dict()) == ["tools", "providers", "has_orchestrator", "has_context", "capabilities",
                                           "has_approval_provider", "has_display_service"]


async def test_mounting_at_hooks_points_to_the_registry() -> None:
    coordinator = make_coordinator()
    with pytest.raises(ValueError, match="Hooks should be registered directly"):
        await coordinator.mount("hooks", object())


async def test_cleanups_are_kept_in_2_0_2s_cleanup_fns_list_and_none_is_not_kept() -> None:
    """Upstream module tests check what mount() handed over through ``coordinator._cleanup_fns``."""
    coordinator = make_coordinator()

    def close() -> None:
        return None

    coordinator.register_cleanup(None)  # a mount() that returned nothing
    coordinator.register_cleanup(close)
    assert coordinator._cleanup_fns == [close]
