"""tool-task against a test coordinator with stand-in spawn/resume capabilities: input checks, depth limit,
the calls it makes, its events, its description, config errors and the kernel's validator."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from amplifier_module_tool_task import AGENT_COMPLETED, AGENT_RESUMED, AGENT_SPAWNED, TaskTool, mount

from amplifier_core.models import HookResult
from amplifier_core.module_config import ModuleConfigError
from amplifier_core.testing import MockCoordinator

CATALOG = {"reader": {"description": "Reads files and reports what they say."},
           "writer": {"description": "Writes  docs\nwith care."}}


class Capabilities:
    def __init__(self, outcome: Any = None, error: Exception | None = None) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
        self.outcome = outcome
        self.error = error

    async def spawn(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(("spawn", args, kwargs))
        if self.error:
            raise self.error
        return self.outcome or {"response": "child answer", "session_id": args[4], "agent": args[0],
                                "status": "completed"}

    async def resume(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(("resume", args, kwargs))
        if self.error:
            raise self.error
        return self.outcome or {"response": "again", "session_id": args[0], "agent": "reader",
                                "status": "completed"}


async def mounted(config: dict[str, Any] | None = None, *, depth: int | None = 0, catalog: Any = CATALOG,
                  capabilities: Capabilities | None = None) -> tuple[TaskTool, MockCoordinator, list]:
    coordinator = MockCoordinator()
    if depth is not None:
        coordinator.register_capability("session.depth", depth)
    if catalog is not None:
        coordinator.register_capability("agents.catalog", catalog)
    if capabilities is not None:
        coordinator.register_capability("session.spawn", capabilities.spawn)
        coordinator.register_capability("session.resume", capabilities.resume)
    events: list[tuple[str, dict[str, Any]]] = []

    async def record(event: str, data: dict[str, Any]) -> None:
        events.append((event, data))

    for name in (AGENT_SPAWNED, AGENT_RESUMED, AGENT_COMPLETED):
        coordinator.hooks.register(name, record)
    await mount(coordinator, config or {})
    return coordinator.get("tools")["task"], coordinator, events


async def test_spawn_passes_agent_instruction_parent_and_a_fresh_child_id_and_returns_the_answer():
    capabilities = Capabilities()
    tool, coordinator, events = await mounted(capabilities=capabilities)

    result = await tool.execute({"agent": "reader", "instruction": "summarise README"})

    assert result.success
    kind, args, kwargs = capabilities.calls[0]
    assert kind == "spawn" and args[:2] == ("reader", "summarise README")
    assert args[2] is coordinator.session
    assert result.output == {"response": "child answer", "session_id": args[4], "agent": "reader"}
    assert kwargs == {"max_depth": 2, "exclude_tools": [], "exclude_hooks": []}
    assert [event for event, _ in events] == [AGENT_SPAWNED, AGENT_COMPLETED]
    assert events[0][1]["sub_session_id"] == args[4] and events[0][1]["parent_session_id"] == "test-session"
    assert events[1][1]["success"] is True


async def test_session_id_resumes_the_child_instead_of_spawning():
    capabilities = Capabilities()
    tool, _, events = await mounted(capabilities=capabilities)

    result = await tool.execute({"session_id": "abc123", "instruction": "now the tests"})

    assert result.success and result.output["session_id"] == "abc123"
    assert capabilities.calls[0][0] == "resume" and capabilities.calls[0][1] == ("abc123", "now the tests")
    assert [event for event, _ in events] == [AGENT_RESUMED, AGENT_COMPLETED]


async def test_context_answered_on_its_events_goes_to_the_child_and_back_to_the_model():
    capabilities = Capabilities()
    tool, coordinator, events = await mounted(capabilities=capabilities)

    async def answer(event: str, data: dict[str, Any]) -> HookResult:
        said = "stay in src/" if event != AGENT_COMPLETED else f"checked: {data['response']}"
        return HookResult(action="inject_context", context_injection=said)

    for name in (AGENT_SPAWNED, AGENT_RESUMED, AGENT_COMPLETED):
        coordinator.hooks.register(name, answer)
    spawned = await tool.execute({"agent": "reader", "instruction": "summarise README"})
    resumed = await tool.execute({"session_id": "abc123", "instruction": "now the tests"})

    assert [call[1][:2] for call in capabilities.calls] == [("reader", "summarise README\n\nstay in src/"),
                                                             ("abc123", "now the tests\n\nstay in src/")]
    assert spawned.output["hook_feedback"] == "checked: child answer"
    assert resumed.output["hook_feedback"] == "checked: again"
    assert events[1][1]["response"] == "child answer"


async def test_a_handler_denying_completion_sends_the_child_back_to_work_at_most_three_times():
    capabilities = Capabilities()
    tool, coordinator, events = await mounted(capabilities=capabilities)

    async def not_yet(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="deny", reason="also update the changelog")

    coordinator.hooks.register(AGENT_COMPLETED, not_yet)
    result = await tool.execute({"agent": "reader", "instruction": "summarise README"})

    child = capabilities.calls[0][1][4]
    assert [(kind, args[:2]) for kind, args, _ in capabilities.calls[1:]] == [
        ("resume", (child, "also update the changelog"))] * 3
    assert [data["stop_hook_active"] for event, data in events if event == AGENT_COMPLETED] == [
        False, True, True, True]
    assert result.success and result.output["hook_feedback"] == "also update the changelog"


async def test_refuses_to_delegate_at_the_depth_limit_without_calling_the_app():
    capabilities = Capabilities()
    tool, _, events = await mounted({"max_depth": 1}, depth=1, capabilities=capabilities)

    result = await tool.execute({"agent": "reader", "instruction": "x"})

    assert not result.success
    assert "Delegation refused" in result.output and "max_depth=1" in result.output
    assert capabilities.calls == [] and events == []


async def test_upstream_max_recursion_depth_overrides_max_depth():
    tool, _, _ = await mounted({"max_depth": 5, "max_recursion_depth": 1}, depth=1, capabilities=Capabilities())
    result = await tool.execute({"agent": "reader", "instruction": "x"})
    assert not result.success and "max_depth=1" in result.output


async def test_a_failed_child_returns_an_error_with_its_session_id_and_completed_success_false():
    error = RuntimeError("agent 'reader' failed: boom")
    error.session_id = "child-1"  # type: ignore[attr-defined]
    tool, _, events = await mounted(capabilities=Capabilities(error=error))

    result = await tool.execute({"agent": "reader", "instruction": "x"})

    assert not result.success
    assert "boom" in result.output and "child-1" in result.output
    completed = events[-1][1]
    assert events[-1][0] == AGENT_COMPLETED and completed["success"] is False
    assert completed["sub_session_id"] == "child-1" and "boom" in completed["error"]


async def test_a_cancelled_child_is_reported_as_not_finished():
    outcome = {"response": "", "session_id": "c", "agent": "reader", "status": "cancelled"}
    tool, _, events = await mounted(capabilities=Capabilities(outcome=outcome))
    result = await tool.execute({"agent": "reader", "instruction": "x"})
    assert not result.success and "cancelled" in result.output
    assert events[-1][1]["success"] is False and events[-1][1]["status"] == "cancelled"


async def test_cancellation_while_the_child_runs_emits_completed_false_and_propagates():
    started = asyncio.Event()

    class Slow(Capabilities):
        async def spawn(self, *args: Any, **kwargs: Any) -> Any:
            started.set()
            await asyncio.Event().wait()

    tool, _, events = await mounted(capabilities=Slow())
    task = asyncio.ensure_future(tool.execute({"agent": "reader", "instruction": "x"}))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert events[-1][0] == AGENT_COMPLETED and events[-1][1]["status"] == "cancelled"


@pytest.mark.parametrize(
    ("tool_input", "message"),
    [
        ({"agent": "reader"}, "'instruction' is required"),
        ({"instruction": "x"}, "'agent' is required"),
        ({"agent": "nobody", "instruction": "x"}, "unknown agent 'nobody' (available: reader, writer)"),
        ({"session_id": 5, "instruction": "x"}, "'session_id' must be"),
    ],
)
async def test_bad_input_is_an_error_result_naming_the_problem(tool_input, message):
    tool, _, _ = await mounted(capabilities=Capabilities())
    result = await tool.execute(tool_input)
    assert not result.success and message in result.output


async def test_without_the_app_capability_the_error_says_so():
    tool, _, _ = await mounted()
    result = await tool.execute({"agent": "reader", "instruction": "x"})
    assert not result.success and "session.spawn" in result.output


async def test_description_lists_agents_from_the_catalog_on_one_line_each():
    tool, _, _ = await mounted()
    assert "- reader: Reads files and reports what they say." in tool.description
    assert "- writer: Writes docs with care." in tool.description


async def test_description_falls_back_to_the_plan_agents_mapping_and_says_when_there_are_none():
    coordinator = MockCoordinator()
    coordinator.session.config["agents"] = {"helper": {"meta": {"description": "Helps."}}}
    await mount(coordinator, {})
    assert "- helper: Helps." in coordinator.get("tools")["task"].description
    tool, _, _ = await mounted(catalog=None)
    assert "No agents are configured" in tool.description


async def test_unknown_config_key_is_rejected_with_the_closest_key():
    with pytest.raises(ModuleConfigError, match="max_depth"):
        await mount(MockCoordinator(), {"max_dept": 3})


async def test_declares_its_events_on_the_observability_channel():
    _, coordinator, _ = await mounted()
    declared = await coordinator.collect_contributions("observability.events")
    assert [AGENT_SPAWNED, AGENT_RESUMED, AGENT_COMPLETED] in declared


async def test_passes_the_kernel_tool_validator():
    from amplifier_core.validation import ToolValidator

    result = await ToolValidator().validate(Path(__file__).parents[1] / "amplifier_module_tool_task")
    assert result.passed, result


async def test_run_in_background_starts_the_child_and_returns_its_id_at_once():
    capabilities = Capabilities(outcome={"session_id": "child-1", "agent": "reader", "status": "running"})
    tool, coordinator, events = await mounted(capabilities=capabilities)
    coordinator.register_capability("session.subagent_output", _reader({}))
    result = await tool.execute({"agent": "reader", "instruction": "look", "run_in_background": True})
    assert result.success and result.output["session_id"] == "child-1" and result.output["status"] == "running"
    assert "task_output" in result.output["note"]
    assert capabilities.calls[0][2]["background"] is True
    assert [event for event, _ in events] == [AGENT_SPAWNED]  # completion is read later, with task_output


async def test_run_in_background_refuses_a_continuation_and_a_missing_capability():
    tool, _, _ = await mounted(capabilities=Capabilities())
    refused = await tool.execute({"session_id": "s", "instruction": "go on", "run_in_background": True})
    assert not refused.success and "foreground" in refused.error["message"]
    missing = await tool.execute({"agent": "reader", "instruction": "look", "run_in_background": True})
    assert not missing.success and "session.subagent_output" in missing.error["message"]


def _reader(reports: dict[str, dict[str, Any]]) -> Any:
    async def read(session_id: str, wait: bool = False, timeout: float | None = None) -> dict[str, Any]:
        if session_id not in reports:
            raise LookupError(f"'{session_id}' is not a sub-agent started in this session")
        return {**reports[session_id], "waited": wait, "timeout": timeout}
    return read


async def test_task_output_reports_the_childs_state_and_a_failed_one_as_an_error():
    _, coordinator, _ = await mounted(capabilities=Capabilities())
    coordinator.register_capability("session.subagent_output", _reader({
        "done": {"status": "completed", "response": "42"}, "broke": {"status": "failed", "error": "boom"}}))
    output_tool = coordinator.get("tools")["task_output"]
    done = await output_tool.execute({"session_id": "done", "wait": True, "timeout": 5})
    assert done.success and done.output["response"] == "42" and done.output["waited"] is True
    assert done.output["timeout"] == 5.0
    broke = await output_tool.execute({"session_id": "broke"})
    assert not broke.success and broke.error["message"] == "boom"
    unknown = await output_tool.execute({"session_id": "nope"})
    assert not unknown.success and "not a sub-agent" in unknown.error["message"]
    for bad in ({}, {"session_id": "done", "timeout": 0}, {"session_id": "done", "timeout": "soon"}):
        assert not (await output_tool.execute(bad)).success
