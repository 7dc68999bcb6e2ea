"""A turn end to end: events, stored transcript, answer text, usage, provider choice and request fields."""

from __future__ import annotations

from decimal import Decimal

import pytest
from amplifier_module_loop_basic import AgentLoop, LoopConfig, mount
from loop_basic_doubles import EchoTool, FakeProvider, call, say

from amplifier_core.message_models import ChatResponse, Usage
from amplifier_core.module_config import ModuleConfigError
from amplifier_core.testing import MockCoordinator


async def test_simple_turn_emits_the_full_event_sequence_and_returns_the_text(harness) -> None:
    answer = await harness.run("hi", FakeProvider(say("hello there")))
    assert answer == "hello there"
    assert harness.names() == [
        "execution:start", "prompt:submit", "provider:request", "content_block:start", "content_block:end",
        "provider:response", "prompt:complete", "orchestrator:complete", "execution:end",
    ]
    complete = harness.data("orchestrator:complete")[0]
    assert complete["orchestrator"] == "loop-basic" and complete["status"] == "success"
    assert complete["turn_count"] == 1
    assert harness.data("execution:end")[0] == {**harness.data("execution:end")[0], "response": "hello there",
                                                "status": "completed"}
    assert harness.data("prompt:complete")[0]["response"] == "hello there"


async def test_transcript_stores_user_assistant_tool_call_and_result_in_streaming_md_format(harness) -> None:
    provider = FakeProvider(call(("echo", {"value": "x"}, "c1"), text="checking"), say("done"))
    await harness.run("do it", provider, [EchoTool()])
    user, assistant, tool, final = harness.messages
    assert user == {"role": "user", "content": "do it"}
    assert assistant["content"] == [{"type": "text", "text": "checking"},
                                    {"type": "tool_call", "id": "c1", "name": "echo", "input": {"value": "x"}}]
    assert assistant["tool_calls"] == [{"id": "c1", "tool": "echo", "arguments": {"value": "x"}}]
    assert tool == {"role": "tool", "tool_call_id": "c1", "name": "echo", "content": "echo:x"}
    assert final == {"role": "assistant", "content": [{"type": "text", "text": "done"}]}


async def test_tool_calls_reported_only_in_tool_calls_get_blocks_in_the_stored_message(harness) -> None:
    response = call(("echo", {"value": "y"}, "c9"))
    response.content = []
    await harness.run("go", FakeProvider(response, say("ok")), [EchoTool()])
    assert harness.messages[1]["content"] == [{"type": "tool_call", "id": "c9", "name": "echo",
                                               "input": {"value": "y"}}]


async def test_thinking_never_leaks_into_the_answer_and_its_signature_is_stored(harness) -> None:
    answer = await harness.run("q", FakeProvider(say("the answer", thinking="secret musing")))
    assert answer == "the answer"
    assert harness.messages[-1]["content"][0] == {"type": "thinking", "thinking": "secret musing",
                                                  "signature": "sig-1"}


async def test_usage_is_summed_over_the_turn_and_reported_with_cost(harness) -> None:
    first = call(("echo", {}, "c1"))
    first.usage = Usage(input_tokens=10, output_tokens=5, total_tokens=15, cost_usd=Decimal("0.01"))
    last = say("fin", usage=(20, 7))
    await harness.run("q", FakeProvider(first, last), [EchoTool()])
    usage = harness.data("orchestrator:complete")[0]["usage"]
    assert usage == {"input_tokens": 30, "output_tokens": 12, "total_tokens": 42, "cost_usd": "0.01"}
    responses = harness.data("provider:response")
    assert responses[0]["usage"]["input_tokens"] == 10 and responses[0]["tool_calls"] is True
    assert responses[1]["tool_call_count"] == 0


async def test_cost_is_absent_when_no_call_reported_one(harness) -> None:
    await harness.run("q", FakeProvider(say("a", usage=(1, 2))))
    assert "cost_usd" not in harness.data("orchestrator:complete")[0]["usage"]


async def test_request_carries_tools_model_reasoning_effort_and_extended_thinking(harness) -> None:
    provider = FakeProvider(say("ok"))
    await harness.run("q", provider, [EchoTool()], model="m-1", reasoning_effort="high", extended_thinking=True,
                      max_output_tokens=123)
    request = provider.requests[0]
    assert request.model == "m-1" and request.reasoning_effort == "high" and request.max_output_tokens == 123
    assert request.stream is False
    assert [(spec.name, spec.parameters["properties"]) for spec in request.tools] == [
        ("echo", {"value": {"type": "string"}})]
    assert provider.kwargs[0] == {"extended_thinking": True}


async def test_no_tools_means_no_tool_specs_and_no_extended_thinking_kwarg(harness) -> None:
    provider = FakeProvider(say("ok"))
    await harness.run("q", provider)
    assert provider.requests[0].tools is None and provider.kwargs[0] == {}


async def test_lowest_priority_provider_is_chosen(harness) -> None:
    slow, fast = FakeProvider(name="slow", priority=50), FakeProvider(say("from fast"), name="fast", priority=1)
    assert await harness.run("q", {"slow": slow, "fast": fast}) == "from fast"
    assert harness.data("provider:request")[0]["provider"] == "fast"


async def test_priority_from_provider_config_and_default_100(harness) -> None:
    configured = FakeProvider(say("configured"), name="configured")
    configured.config = {"priority": 5}
    plain = FakeProvider(name="plain")
    assert await harness.run("q", {"plain": plain, "configured": configured}) == "configured"


async def test_default_provider_wins_over_priority_and_accepts_the_module_id(harness) -> None:
    low = FakeProvider(name="low", priority=1)
    chosen = FakeProvider(say("chosen"), name="chosen", priority=99)
    assert await harness.run("q", {"low": low, "chosen": chosen}, default_provider="provider-chosen") == "chosen"


async def test_unmounted_default_provider_falls_back_to_priority(harness) -> None:
    assert await harness.run("q", FakeProvider(say("fallback")), default_provider="missing") == "fallback"


async def test_overrides_capability_switches_provider_and_model(harness) -> None:
    first, second = FakeProvider(name="first", priority=1), FakeProvider(say("second"), name="second")
    harness.coordinator.register_capability("orchestrator.overrides", {"provider": "second", "model": "m-2"})
    assert await harness.run("q", {"first": first, "second": second}, model="m-config") == "second"
    assert second.requests[0].model == "m-2"


async def test_overrides_capability_naming_an_unmounted_provider_is_an_error(harness) -> None:
    harness.coordinator.register_capability("orchestrator.overrides", {"provider": "nope"})
    with pytest.raises(ValueError, match=r"Provider 'nope'.*not mounted; mounted providers: fake"):
        await harness.run("q", FakeProvider())
    assert harness.data("orchestrator:complete")[0]["status"] == "error"


async def test_empty_responses_are_retried_then_the_turn_ends_incomplete(harness) -> None:
    empty = ChatResponse(content=[])
    assert await harness.run("q", FakeProvider(empty, say("late answer"))) == "late answer"
    harness.seen.clear()
    assert await harness.run("q", FakeProvider(empty, empty, empty)) == ""
    assert harness.data("orchestrator:complete")[0]["status"] == "incomplete"
    assert harness.messages[-1]["role"] == "assistant"


async def test_mount_parses_config_and_mounts_the_loop() -> None:
    coordinator = MockCoordinator()
    assert await mount(coordinator, {"max_iterations": 3}) is None
    loop = coordinator.get("orchestrator")
    assert isinstance(loop, AgentLoop) and loop.config.max_iterations == 3 and loop.stream is False


async def test_unknown_config_key_names_the_closest_valid_key() -> None:
    with pytest.raises(ModuleConfigError, match=r"unknown key 'max_iteration'.*did you mean 'max_iterations'"):
        await mount(MockCoordinator(), {"max_iteration": 3})


def test_max_iterations_zero_is_rejected() -> None:
    with pytest.raises(ValueError, match="-1 \\(unlimited\\) or at least 1"):
        LoopConfig(max_iterations=0)
