"""Tool rounds: parallel execution with results in call order, ids on every event, and failures that become
error results instead of crashing the turn."""

from __future__ import annotations

import asyncio
from typing import Any

from loop_basic_doubles import BoomTool, EchoTool, FakeProvider, GatedTool, call, say

from amplifier_core.models import ToolResult


async def test_parallel_calls_run_concurrently_and_results_are_stored_in_call_order(harness) -> None:
    first, second = GatedTool("first"), EchoTool("second")

    async def second_releases_first(input: dict[str, Any]) -> ToolResult:
        await first.started.wait()
        first.release.set()  # the first call can only finish because both run at the same time
        return ToolResult(output="second done")

    second.execute = second_releases_first
    calls = call(("first", {"value": "1"}, "c1"), ("second", {}, "c2"))
    await harness.run("q", FakeProvider(calls, say("ok")), [first, second])
    assert [(m["tool_call_id"], m["content"]) for m in harness.messages[2:4]] == [
        ("c1", "first:1"), ("c2", "second done")]


async def test_every_tool_event_carries_tool_call_id_and_the_round_s_parallel_group_id(harness) -> None:
    calls = call(("echo", {"value": "a"}, "c1"), ("echo", {"value": "b"}, "c2"))
    await harness.run("q", FakeProvider(calls, say("ok")), [EchoTool()])
    pre, post = harness.data("tool:pre"), harness.data("tool:post")
    assert sorted(d["tool_call_id"] for d in pre) == ["c1", "c2"] == sorted(d["tool_call_id"] for d in post)
    assert len({d["parallel_group_id"] for d in pre + post}) == 1
    assert {d["tool_name"] for d in pre} == {"echo"} and {d["tool_input"]["value"] for d in pre} == {"a", "b"}
    assert post[0]["result"]["success"] is True


async def test_unknown_tool_becomes_an_error_result_listing_available_tools(harness) -> None:
    await harness.run("q", FakeProvider(call(("nope", {}, "c1")), say("ok")), [EchoTool()])
    assert harness.messages[2]["content"] == "Error: Tool 'nope' is not available. Available tools: echo."
    assert harness.data("tool:error")[0]["error"]["type"] == "ToolNotFound"
    assert harness.data("orchestrator:complete")[0]["status"] == "success"


async def test_tool_exception_becomes_an_error_result_and_the_turn_continues(harness) -> None:
    answer = await harness.run("q", FakeProvider(call(("boom", {}, "c1")), say("recovered")), [BoomTool("boom")])
    assert answer == "recovered"
    assert harness.messages[2]["content"] == "Error executing tool 'boom': RuntimeError: disk on fire"
    assert harness.data("tool:error")[0]["error"] == {"type": "RuntimeError", "msg": "disk on fire"}


async def test_each_tool_pre_is_followed_by_exactly_one_post_or_error(harness) -> None:
    calls = call(("echo", {}, "c1"), ("boom", {}, "c2"), ("nope", {}, "c3"))
    await harness.run("q", FakeProvider(calls, say("ok")), [EchoTool(), BoomTool("boom")])
    ends = [d["tool_call_id"] for d in harness.data("tool:post") + harness.data("tool:error")]
    assert sorted(ends) == ["c1", "c2", "c3"]


async def test_failed_tool_result_is_passed_to_the_model_as_the_tool_s_output(harness) -> None:
    tool = EchoTool("grumpy")

    async def refuse(input: dict[str, Any]) -> ToolResult:
        return ToolResult(success=False, error={"message": "file not found: a.txt"})
    tool.execute = refuse
    await harness.run("q", FakeProvider(call(("grumpy", {}, "c1")), say("ok")), [tool])
    assert harness.messages[2]["content"] == "file not found: a.txt"
    assert harness.data("tool:post")[0]["result"]["success"] is False


async def test_non_toolresult_return_values_are_accepted(harness) -> None:
    tool = EchoTool("dicty")

    async def give_dict(input: dict[str, Any]) -> Any:
        return {"files": ["a", "b"]}
    tool.execute = give_dict
    await harness.run("q", FakeProvider(call(("dicty", {}, "c1")), say("ok")), [tool])
    assert harness.messages[2]["content"] == '{"files": ["a", "b"]}'


async def test_running_tools_are_registered_with_the_cancellation_token(harness) -> None:
    tool = GatedTool()
    seen: list[set[str]] = []

    async def observe() -> ToolResult:
        await tool.started.wait()
        seen.append(harness.coordinator.cancellation.running_tools)
        tool.release.set()

    watcher = asyncio.ensure_future(observe())
    await harness.run("q", FakeProvider(call(("gated", {}, "c1")), say("ok")), [tool])
    await watcher
    assert seen == [{"c1"}] and harness.coordinator.cancellation.running_tools == set()


async def test_max_iterations_ends_with_a_text_wrap_up_that_forbids_tool_calls(harness) -> None:
    wrap_up = call(("echo", {}, "late"), text="Summary: did two things.")
    provider = FakeProvider(call(("echo", {}, "c1")), call(("echo", {}, "c2")), wrap_up)
    answer = await harness.run("q", provider, [EchoTool()], max_iterations=2)
    assert answer == "Summary: did two things."
    assert provider.requests[1].tool_choice is None
    assert provider.requests[2].tool_choice == "none" and [t.name for t in provider.requests[2].tools] == ["echo"]
    assert "Do not call any tools" in provider.requests[2].messages[-1].content
    last = harness.messages[-1]
    assert last == {"role": "assistant", "content": [{"type": "text", "text": "Summary: did two things."}]}
    assert harness.data("provider:request")[-1]["max_reached"] is True
    assert harness.data("orchestrator:complete")[0]["status"] == "incomplete"
    assert all(m.get("content") != provider.requests[2].messages[-1].content for m in harness.messages)


async def test_max_iterations_wrap_up_without_text_returns_a_note_not_blocks(harness) -> None:
    provider = FakeProvider(call(("echo", {}, "c1")), call(("echo", {}, "c2")))
    answer = await harness.run("q", provider, [EchoTool()], max_iterations=1)
    assert answer == "I stopped after reaching the limit of 1 model calls for one turn before finishing the task."
    assert isinstance(answer, str) and harness.messages[-1]["content"][0]["text"] == answer
    assert not any(m.get("tool_calls") and m["tool_calls"][0]["id"] == "c2" for m in harness.messages)
