"""amplifier_core.testing: the doubles module authors build their tests on (reference §12.1)."""

from __future__ import annotations

import asyncio

import pytest

from amplifier_core import AmplifierSession, HookResult, ModuleCoordinator, ToolResult
from amplifier_core.cancellation import CancellationToken
from amplifier_core.message_models import response_text
from amplifier_core.testing import (
    EventRecorder,
    MockContextManager,
    MockCoordinator,
    MockProvider,
    MockTool,
    ScriptedOrchestrator,
    TestCoordinator,
    create_test_coordinator,
    wait_for,
)


async def test_mock_coordinator_is_a_module_coordinator_built_without_arguments() -> None:
    coordinator = MockCoordinator()
    assert isinstance(coordinator, ModuleCoordinator)
    assert TestCoordinator is MockCoordinator
    assert coordinator.session_id == "test-session"
    assert isinstance(coordinator.session, AmplifierSession)
    assert coordinator.session.coordinator is coordinator
    assert isinstance(coordinator.cancellation, CancellationToken)
    assert not coordinator.cancellation.is_cancelled
    assert coordinator.mount_points["hooks"] is coordinator.hooks


async def test_mock_coordinator_records_mount_and_unmount_history() -> None:
    coordinator = MockCoordinator()
    tool = MockTool("search")
    await coordinator.mount("tools", tool)
    await coordinator.unmount("tools", "search")
    assert coordinator.mount_history == [{"mount_point": "tools", "module": tool, "name": None}]
    assert coordinator.unmount_history == [{"mount_point": "tools", "name": "search"}]
    assert coordinator.get_mounted("tools") == {}


async def test_mock_coordinator_hooks_are_real_and_record_registrations() -> None:
    coordinator = MockCoordinator()

    async def handler(event: str, data: dict) -> HookResult:
        return HookResult(action="deny", reason=f"saw {sorted(data)}")

    coordinator.hooks.register("tool:pre", handler, priority=5)
    coordinator.hooks.on("tool:post", handler, name="again")
    assert [(item.event, item.name, item.priority) for item in coordinator.hook_registrations] == [
        ("tool:pre", "handler", 5), ("tool:post", "again", 0)]
    result = await coordinator.hooks.emit("tool:pre", {})
    # as 2.0.2's: the mock's registry adds no session ids, so a handler sees the emitted data and the stamp only
    assert result.action == "deny" and result.reason == "saw ['timestamp']"


async def test_mock_coordinator_approval_and_display_doubles_record_calls() -> None:
    coordinator = MockCoordinator(session_config={"injection_size_limit": 5})
    assert coordinator.injection_size_limit == 5
    granted = await coordinator.process_hook_result(
        HookResult(action="ask_user", approval_prompt="Run rm?"), "tool:pre", "guard")
    assert granted.action == "continue"
    assert coordinator.approval_system.requests[0]["prompt"] == "Run rm?"
    coordinator.approval_system.answer = "Deny"
    denied = await coordinator.process_hook_result(HookResult(action="ask_user"), "tool:pre", "guard")
    assert denied.action == "deny"
    await coordinator.process_hook_result(HookResult(user_message="heads up"), "tool:post", "notifier")
    assert coordinator.display_system.messages == [
        {"message": "heads up", "level": "info", "source": "hook:notifier"}]


async def test_mock_tool_counts_calls_and_returns_its_output() -> None:
    tool = MockTool()
    assert tool.name == "mock_tool" and tool.description == "Mock tool: mock_tool"
    assert tool.input_schema == {"type": "object", "properties": {}}
    result = await tool.execute({"q": 1})
    assert result == ToolResult(success=True, output="Success")
    assert tool.call_count == 1 and tool.last_input == {"q": 1}
    tool.execute.assert_awaited_once_with({"q": 1})


def test_mock_tool_accepts_the_contract_docs_spelling() -> None:
    tool = MockTool(name="t", description="Test tool", return_value="mock result")
    assert tool.description == "Test tool" and tool.output == "mock result"


async def test_mock_context_manager_keeps_messages_and_supports_set_and_clear() -> None:
    context = MockContextManager([{"role": "user", "content": "a"}])
    await context.add_message({"role": "assistant", "content": "b"})
    assert [message["content"] for message in await context.get_messages()] == ["a", "b"]
    assert await context.get_messages() is context.messages
    view = await context.get_messages_for_request(token_budget=10)
    assert view == context.messages and view is not context.messages
    await context.set_messages([{"role": "user", "content": "restored"}])
    assert context.messages == [{"role": "user", "content": "restored"}]
    await context.clear()
    assert context.messages == []
    assert await context._should_compact() is False
    context.add_message.assert_awaited_once()


async def test_event_recorder_records_copies_and_filters() -> None:
    recorder = EventRecorder()
    data = {"tool_name": "bash"}
    result = await recorder.emit("tool:pre", data)
    data["tool_name"] = "changed"
    await recorder.record("tool:post", {"ok": True})
    assert result.action == "continue"
    assert result.data is None  # as 2.0.2: the recorder echoes nothing back for a loop to adopt
    assert recorder.events == [("tool:pre", {"tool_name": "bash"}), ("tool:post", {"ok": True})]
    assert recorder.get_events("tool:post") == [("tool:post", {"ok": True})]
    recorder.get_events().clear()
    assert len(recorder.events) == 2
    recorder.clear()
    assert recorder.events == []


async def test_scripted_orchestrator_runs_through_a_session_with_coordinator_kwarg() -> None:
    orchestrator = ScriptedOrchestrator(["first", "second"])
    coordinator = create_test_coordinator()
    recorder = EventRecorder()
    context = coordinator.get("context")
    providers = {"mock": MockProvider()}
    answers = [await orchestrator.execute(prompt=f"p{i}", context=context, providers=providers, tools={},
                                          hooks=recorder, coordinator=coordinator) for i in range(3)]
    assert answers == ["first", "second", "DONE"]
    assert orchestrator.call_count == 3
    assert [event for event, _ in recorder.events[:2]] == ["session:start", "session:end"]
    assert context.messages[:2] == [{"role": "user", "content": "p0"}, {"role": "assistant", "content": "first"}]


async def test_mock_provider_answers_and_records_requests() -> None:
    from amplifier_core import ChatRequest, ChatResponse, Message, TextBlock

    provider = MockProvider(responses=["one", ChatResponse(content=[TextBlock(text="two")])])
    request = ChatRequest(messages=[Message(role="user", content="hi")])
    assert provider.get_info().id == "mock" and provider.get_info().display_name == "Mock Provider"
    assert await provider.list_models() == []
    texts = [response_text(await provider.complete(request)) for _ in range(3)]
    assert texts == ["one", "two", "Mock response"]
    assert provider.requests == [request] * 3
    assert provider.parse_tool_calls(ChatResponse(content=[])) == []


def test_create_test_coordinator_has_echo_and_fail_tools_and_a_context() -> None:
    coordinator = create_test_coordinator()
    tools = coordinator.get("tools")
    assert set(tools) == {"echo", "fail"}
    assert tools["echo"].output == "Echo response" and tools["fail"].output is None
    assert isinstance(coordinator.get("context"), MockContextManager)


async def test_wait_for_returns_true_once_condition_holds_and_false_on_timeout() -> None:
    state = {"ready": False}

    async def flip() -> None:
        state["ready"] = True

    task = asyncio.create_task(flip())
    assert await wait_for(lambda: state["ready"], timeout=1.0) is True
    await task
    assert await wait_for(lambda: False, timeout=0.03) is False


def test_testing_names_are_importable_from_the_top_level() -> None:
    import amplifier_core

    for name in ("TestCoordinator", "MockCoordinator", "MockTool", "MockContextManager", "EventRecorder",
                 "ScriptedOrchestrator", "create_test_coordinator", "wait_for"):
        assert getattr(amplifier_core, name) is getattr(__import__("amplifier_core.testing").testing, name)


@pytest.mark.parametrize("cls", [MockCoordinator, MockTool])
def test_test_doubles_are_not_collected_as_test_classes(cls: type) -> None:
    assert cls.__test__ is False


async def test_mock_context_fills_the_callers_list_and_mocks_compaction_internals() -> None:
    from amplifier_core.testing import MockContextManager

    mine: list[dict] = [{"role": "user", "content": "a"}]
    context = MockContextManager(mine)
    await context.add_message({"role": "assistant", "content": "b"})
    assert mine == [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    assert await context._should_compact() is False
    context._should_compact.assert_awaited_once()
    context._compact_internal.assert_not_called()


async def test_mock_coordinator_has_every_attribute_of_the_real_one() -> None:
    from amplifier_core import ModuleCoordinator
    from amplifier_core.testing import MockCoordinator

    mock = MockCoordinator()
    real_names = {name for name in dir(ModuleCoordinator) if not name.startswith("__")}
    assert real_names <= set(dir(mock))
    assert mock.session_state == {} and mock.channels == {} and mock.mount_points["hooks"] is mock.hooks
    mock.session_state["turns"] = 1
    assert mock.session_state == {"turns": 1}
    assert mock.session_id == "test-session" and mock.config["session"]["orchestrator"] == "test-orchestrator"


async def test_mock_tool_returns_a_tool_result_given_as_return_value_unwrapped() -> None:
    from amplifier_core.models import ToolResult
    from amplifier_core.testing import MockTool

    failure = ToolResult(success=False, error={"message": "boom"})
    result = await MockTool("t", return_value=failure).execute({})
    assert result is failure and result.success is False
