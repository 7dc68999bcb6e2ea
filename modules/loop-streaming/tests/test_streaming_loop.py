"""loop-streaming: asks providers to stream, lets a streaming provider's deltas through untouched, emits the
same events itself when the provider did not stream, and runs tools on the streaming path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from amplifier_module_loop_streaming import StreamingOrchestrator, mount
from loop_basic_doubles import EchoTool, FakeProvider, InTestContextLoader, call, say, session_plan

from amplifier_core import AmplifierSession, events
from amplifier_core.message_models import ChatRequest
from amplifier_core.testing import MockContextManager, MockCoordinator
from amplifier_core.validation import OrchestratorValidator

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "amplifier_module_loop_streaming"


def record_all(session: AmplifierSession) -> list[tuple[str, dict[str, Any]]]:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def capture(event: str, data: dict[str, Any]) -> None:
        seen.append((event, dict(data)))

    for name in events.ALL_EVENTS:
        session.coordinator.hooks.register(name, capture, priority=-1000, name="recorder")
    return seen


async def test_mount_builds_the_loop_with_streaming_on() -> None:
    coordinator = MockCoordinator()
    await mount(coordinator, {"max_iterations": 4})
    loop = coordinator.get("orchestrator")
    assert isinstance(loop, StreamingOrchestrator) and loop.stream is True and loop.name == "loop-streaming"
    assert loop.config.max_iterations == 4


async def test_requests_ask_the_provider_to_stream(harness) -> None:
    provider = FakeProvider(say("ok"))
    await harness.run("q", provider, loop=StreamingOrchestrator())
    assert provider.requests[0].stream is True
    assert harness.data("orchestrator:complete")[0]["orchestrator"] == "loop-streaming"


async def test_unstreamed_response_gets_synthetic_block_events_before_provider_response(harness) -> None:
    await harness.run("q", FakeProvider(say("whole answer", thinking="mulling")), loop=StreamingOrchestrator())
    names = harness.names()
    start = names.index("provider:request") + 1
    assert names[start:names.index("provider:response")] == [
        "content_block:start", "thinking:delta", "thinking:final", "content_block:end",
        "content_block:start", "content_block:delta", "content_block:end",
    ]
    delta = harness.data("content_block:delta")[0]
    assert delta == {**delta, "provider": "fake", "block_index": 1, "block_type": "text", "delta": "whole answer"}
    assert harness.data("thinking:final")[0]["text"] == "mulling"
    assert harness.data("content_block:end")[1]["block"] == {"type": "text", "text": "whole answer"}


async def test_loop_basic_emits_block_start_and_end_without_deltas(harness) -> None:
    await harness.run("q", FakeProvider(say("a", thinking="t")))
    assert "content_block:delta" not in harness.names() and "thinking:delta" not in harness.names()
    assert harness.names().count("content_block:end") == 2


async def test_streamed_session_runs_tools_and_passes_provider_deltas_through_once() -> None:
    context = MockContextManager()
    script = [{"text": "Let me echo.", "tool_calls": [{"name": "echo", "arguments": {"value": "x"}, "id": "e1"}]},
              {"text": "All done.", "match": "echo:x"}]
    session = AmplifierSession(session_plan("loop-streaming", script), loader=InTestContextLoader(context))
    async with session:
        await session.coordinator.mount("tools", EchoTool())
        seen = record_all(session)
        assert await session.execute("please echo") == "All done."
    names = [name for name, _ in seen]
    first_response = names.index("provider:response")
    assert names[names.index("provider:request"):first_response] == [
        "provider:request", "llm:request",
        "llm:stream_block_start", "content_block:start", "content_block:delta", "content_block:delta",
        "content_block:end", "llm:stream_block_end",
        "llm:stream_block_start", "content_block:start", "content_block:delta", "content_block:delta",
        "content_block:end", "llm:stream_block_end",
        "llm:response",
    ]
    assert names[first_response + 1:first_response + 3] == ["tool:pre", "tool:post"]
    assert names.count("content_block:start") == 3  # 2 blocks + 1 block: the loop added none
    text = "".join(d["delta"] for n, d in seen if n == "content_block:delta" and d["block_type"] == "text")
    assert text == "Let me echo.All done."
    assert [m["role"] for m in context.messages] == ["user", "assistant", "tool", "assistant"]
    assert context.messages[2]["content"] == "echo:x"
    assert "metadata" not in context.messages[-1] or "streamed" not in context.messages[-1]["metadata"]
    assert names[-4:] == ["prompt:complete", "orchestrator:complete", "execution:end", "session:end"]


async def test_immediate_cancel_while_streaming_discards_the_response_and_closes_the_turn() -> None:
    context = MockContextManager()
    session = AmplifierSession(session_plan("loop-streaming", ["a long streamed answer"]),
                               loader=InTestContextLoader(context))
    async with session:
        async def stop_on_first_delta(event: str, data: dict[str, Any]) -> None:
            await session.coordinator.request_cancel(immediate=True)

        session.coordinator.hooks.register("content_block:delta", stop_on_first_delta, name="stopper")
        assert await session.execute("q") == ""
    assert session.status.status == "cancelled"
    assert [m["role"] for m in context.messages] == ["user", "assistant"]
    assert "cancelled" in context.messages[-1]["content"][0]["text"]


async def test_streaming_provider_output_matches_what_is_stored(harness) -> None:
    async def streams(request: ChatRequest) -> Any:
        response = say("streamed text")
        response.metadata = {"streamed": True, "request_id": "r1"}
        return response

    await harness.run("q", FakeProvider(streams), loop=StreamingOrchestrator())
    assert "content_block:start" not in harness.names()
    assert harness.messages[-1]["metadata"] == {"request_id": "r1"}


async def test_parallel_tools_run_on_the_streaming_path(harness) -> None:
    calls = call(("echo", {"value": "1"}, "c1"), ("echo", {"value": "2"}, "c2"))
    answer = await harness.run("q", FakeProvider(calls, say("fin")), [EchoTool()], loop=StreamingOrchestrator())
    assert answer == "fin"
    assert [m["content"] for m in harness.messages if m["role"] == "tool"] == ["echo:1", "echo:2"]


async def test_loop_streaming_passes_the_orchestrator_validator() -> None:
    result = await OrchestratorValidator().validate(PACKAGE_DIR)
    assert result.passed, [check for check in result.checks if not check.passed]
