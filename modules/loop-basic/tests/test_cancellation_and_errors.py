"""Cancellation (graceful and immediate, from the token or by cancelling the task) and provider errors:
every stored tool call keeps a result, the transcript stays resumable, and the end events still fire."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from loop_basic_doubles import EchoTool, FakeProvider, GatedTool, call, say

from amplifier_core.llm_errors import AuthenticationError, RateLimitError
from amplifier_core.message_models import ChatRequest, Message

CLOSING = "The user cancelled this turn before it finished; the results above are what was completed."


def assert_resumable(messages: list[dict[str, Any]]) -> None:
    """Every tool call is answered right after its assistant message, and the turn ends with an assistant."""
    ChatRequest(messages=[Message.model_validate(m) for m in messages])
    for index, message in enumerate(messages):
        if message.get("tool_calls"):
            ids = [c["id"] for c in message["tool_calls"]]
            following = messages[index + 1:index + 1 + len(ids)]
            assert [m.get("tool_call_id") for m in following] == ids
    assert messages[-1]["role"] == "assistant"


async def test_graceful_cancel_lets_running_tools_finish_then_stops(harness) -> None:
    tool = GatedTool()
    provider = FakeProvider(call(("gated", {"value": "v"}, "c1")), say("never asked"))
    turn = asyncio.ensure_future(harness.run("q", provider, [tool]))
    await tool.started.wait()
    await harness.coordinator.request_cancel(immediate=False)
    tool.release.set()
    assert await turn == ""
    assert len(provider.requests) == 1 and not tool.cancelled
    assert harness.messages[2]["content"] == "gated:v"
    assert harness.messages[-1]["content"][0]["text"] == CLOSING
    assert_resumable(harness.messages)
    assert harness.data("orchestrator:complete")[0]["status"] == "cancelled"
    assert harness.data("execution:end")[0]["status"] == "cancelled"


async def test_immediate_cancel_cancels_running_tools_and_pairs_their_calls(harness) -> None:
    slow, quick = GatedTool("slow"), EchoTool("quick")
    provider = FakeProvider(call(("quick", {"value": "1"}, "c1"), ("slow", {}, "c2")))
    turn = asyncio.ensure_future(harness.run("q", provider, [slow, quick]))
    await slow.started.wait()
    await harness.coordinator.request_cancel(immediate=True)
    assert await turn == ""
    assert slow.cancelled
    results = {m["tool_call_id"]: m["content"] for m in harness.messages if m["role"] == "tool"}
    assert results == {"c1": "quick:1",
                       "c2": "Cancelled: the user stopped this tool call before it finished."}
    assert harness.data("tool:error")[0]["error"]["type"] == "Cancelled"
    assert_resumable(harness.messages)


async def test_immediate_cancel_during_the_provider_call_stops_waiting_for_it(harness) -> None:
    entered, never = asyncio.Event(), asyncio.Event()

    async def hang(request: ChatRequest) -> Any:
        entered.set()
        await never.wait()

    turn = asyncio.ensure_future(harness.run("q", FakeProvider(hang)))
    await entered.wait()
    await harness.coordinator.request_cancel(immediate=True)
    assert await turn == ""
    assert [m["role"] for m in harness.messages] == ["user", "assistant"]
    assert harness.data("orchestrator:complete")[0]["status"] == "cancelled"
    assert harness.data("provider:response") == []


async def test_graceful_cancel_during_the_provider_call_does_not_start_its_tools(harness) -> None:
    tool = EchoTool()

    async def cancel_then_call(request: ChatRequest) -> Any:
        await harness.coordinator.request_cancel(immediate=False)
        return call(("echo", {}, "c1"))

    assert await harness.run("q", FakeProvider(cancel_then_call), [tool]) == ""
    assert tool.inputs == []
    assert harness.messages[2]["content"] == "Not run: the user cancelled the turn before this tool call ran."
    assert_resumable(harness.messages)


async def test_cancelling_the_turn_task_pairs_open_calls_and_reraises(harness) -> None:
    tool = GatedTool()
    turn = asyncio.ensure_future(harness.run("q", FakeProvider(call(("gated", {}, "c1"))), [tool]))
    await tool.started.wait()
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert tool.cancelled
    assert harness.messages[2]["tool_call_id"] == "c1"
    assert_resumable(harness.messages)
    assert harness.data("orchestrator:complete")[0]["status"] == "cancelled"


async def test_a_cancelled_transcript_can_be_continued_in_the_next_turn(harness) -> None:
    tool = GatedTool()
    turn = asyncio.ensure_future(harness.run("q", FakeProvider(call(("gated", {}, "c1"))), [tool]))
    await tool.started.wait()
    await harness.coordinator.request_cancel(immediate=True)
    await turn
    harness.coordinator.cancellation.reset()
    provider = FakeProvider(say("continuing"))
    assert await harness.run("go on", provider, [tool]) == "continuing"
    assert [m.role for m in provider.requests[0].messages] == ["user", "assistant", "tool", "assistant", "user"]


async def test_provider_error_emits_provider_error_with_retry_facts_and_propagates(harness) -> None:
    with pytest.raises(RateLimitError, match="slow down"):
        await harness.run("q", FakeProvider(RateLimitError("slow down", status_code=429)))
    error = harness.data("provider:error")[0]
    assert error["error"] == {"type": "RateLimitError", "msg": "slow down"}
    assert error["retryable"] is True and error["status_code"] == 429 and error["provider"] == "fake"
    assert harness.data("orchestrator:complete")[0]["status"] == "error"
    assert harness.data("orchestrator:complete")[0]["error"]["type"] == "RateLimitError"
    assert harness.data("execution:end")[0]["status"] == "error"


async def test_non_retryable_and_generic_errors_are_reported_as_such(harness) -> None:
    with pytest.raises(AuthenticationError):
        await harness.run("q", FakeProvider(AuthenticationError("bad key", status_code=401)))
    assert harness.data("provider:error")[0]["retryable"] is False
    harness.seen.clear()
    with pytest.raises(ValueError, match="odd"):
        await harness.run("q", FakeProvider(ValueError("odd")))
    assert "retryable" not in harness.data("provider:error")[0]


async def test_provider_error_after_tools_leaves_every_call_answered(harness) -> None:
    provider = FakeProvider(call(("echo", {}, "c1")), RateLimitError("later"))
    with pytest.raises(RateLimitError):
        await harness.run("q", provider, [EchoTool()])
    assert [m["role"] for m in harness.messages] == ["user", "assistant", "tool"]


async def test_cancelling_the_turn_while_results_are_being_stored_still_pairs_every_call(harness) -> None:
    """A context whose add_message really awaits (disk, network) can be interrupted between two results."""
    entered, never = asyncio.Event(), asyncio.Event()
    original_add = harness.context.add_message.side_effect

    async def slow_second_result(message: dict[str, Any]) -> None:
        if message.get("tool_call_id") == "c2" and not entered.is_set():
            entered.set()
            await never.wait()
        await original_add(message)

    harness.context.add_message.side_effect = slow_second_result
    provider = FakeProvider(call(("echo", {"value": "1"}, "c1"), ("echo", {"value": "2"}, "c2"),
                                 ("echo", {"value": "3"}, "c3")))
    turn = asyncio.ensure_future(harness.run("q", provider, [EchoTool()]))
    await entered.wait()
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    results = {m["tool_call_id"]: m["content"] for m in harness.messages if m["role"] == "tool"}
    assert results == {"c1": "echo:1", "c2": "echo:2", "c3": "echo:3"}
    assert_resumable(harness.messages)
