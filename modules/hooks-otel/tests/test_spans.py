"""hooks-otel against a real OTLP/HTTP receiver on loopback: the spans of a session (session > turn > chat /
execute_tool, sub-agents under their task call), their GenAI attributes, the token/duration/cost metrics, and
what content leaves the machine (only when opted in, secrets never)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import amplifier_module_hooks_otel as hooks_otel
import pytest
from otlpreceiver import OTLPReceiver, ReceivedSpan

from amplifier_core.session import AmplifierSession
from amplifier_core.testing import MockCoordinator

SECRET = "sk-otel-test-secret-value-0123456789"
PROMPT = "PROMPT-MARK: write the report"
ARGUMENTS = {"path": "notes.txt", "content": f"ARG-MARK key={SECRET}"}
RESPONSE = {"content": [{"type": "text", "text": "ANSWER-MARK done"}],
            "metadata": {"model": "claude-sonnet-4-6-20260101", "anthropic:message_id": "msg_1"}}


@pytest.fixture
def receiver() -> Iterator[OTLPReceiver]:
    with OTLPReceiver() as running:
        yield running


@pytest.fixture(autouse=True)
def _no_otel_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED",
                 "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
                 "OTEL_SERVICE_NAME", "OTEL_EXPORTER_OTLP_HEADERS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OTELTEST_API_KEY", SECRET)


async def mounted(coordinator: MockCoordinator, receiver: OTLPReceiver, **config: Any) -> Any:
    cleanup = await hooks_otel.mount(coordinator, {"endpoint": receiver.endpoint, **config})
    assert cleanup is not None
    return cleanup


async def play_turn(coordinator: MockCoordinator, *, tool: str = "write_file") -> None:
    """The events of one turn as the loop emits them: a model call asking for a tool, the tool, a last call."""
    emit = coordinator.hooks.emit
    await emit("session:start", {"session_id": coordinator.session_id, "parent_id": None})
    await emit("execution:start", {"prompt": PROMPT})
    await emit("provider:request", {"provider": "anthropic", "model": None, "iteration": 1})
    await emit("llm:request", {"provider": "anthropic", "model": "claude-sonnet-4-6"})
    await emit("llm:response", {"provider": "anthropic", "model": "claude-sonnet-4-6", "status": "ok",
                                "duration_ms": 1500, "finish_reason": "tool_use", "cost_usd": "0.0045",
                                "usage": {"input_tokens": 1000, "output_tokens": 100, "cache_read_tokens": 20}})
    await emit("provider:response", {"provider": "anthropic", "model": None, "iteration": 1, "response": RESPONSE,
                                     "finish_reason": "tool_use"})
    await emit("tool:pre", {"tool_name": tool, "tool_input": ARGUMENTS, "tool_call_id": "toolu_1"})
    await emit("tool:post", {"tool_name": tool, "tool_input": ARGUMENTS, "tool_call_id": "toolu_1",
                             "result": {"success": True, "output": f"RESULT-MARK wrote {SECRET}"}})
    await emit("provider:request", {"provider": "anthropic", "model": "claude-sonnet-4-6", "iteration": 2})
    await emit("llm:response", {"provider": "anthropic", "model": "claude-sonnet-4-6", "status": "ok",
                                "duration_ms": 500, "usage": {"input_tokens": 1200, "output_tokens": 10}})
    await emit("provider:response", {"provider": "anthropic", "iteration": 2, "response": RESPONSE})
    await emit("orchestrator:complete", {"status": "success", "turn_count": 2, "provider": "anthropic",
                                         "model": "claude-sonnet-4-6",
                                         "usage": {"input_tokens": 2200, "output_tokens": 110}})
    await emit("execution:end", {"response": "ANSWER-MARK done", "status": "completed"})
    await emit("session:end", {"session_id": coordinator.session_id, "status": "completed"})


def by_name(spans: list[ReceivedSpan]) -> dict[str, list[ReceivedSpan]]:
    grouped: dict[str, list[ReceivedSpan]] = {}
    for span in spans:
        grouped.setdefault(span.name, []).append(span)
    return grouped


async def test_a_turn_exports_session_turn_chat_and_tool_spans_in_parent_child_order(receiver):
    coordinator = MockCoordinator()
    cleanup = await mounted(coordinator, receiver, service_name="otel-test")
    await play_turn(coordinator)
    cleanup()
    spans = by_name(receiver.spans())
    [session] = spans["amplifier session"]
    [turn] = spans["invoke_agent amplifier"]
    chats = spans["chat claude-sonnet-4-6"]
    [tool] = spans["execute_tool write_file"]
    assert session.parent_span_id == "" and session.attributes["gen_ai.conversation.id"] == "test-session"
    assert turn.parent_span_id == session.span_id and turn.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert len(chats) == 2 and {chat.parent_span_id for chat in chats} == {turn.span_id}
    assert tool.parent_span_id == turn.span_id
    assert len({span.trace_id for span in receiver.spans()}) == 1
    first = min(chats, key=lambda span: span.start_ns)
    assert first.kind == "CLIENT"
    assert first.attributes["gen_ai.operation.name"] == "chat"
    assert first.attributes["gen_ai.provider.name"] == first.attributes["gen_ai.system"] == "anthropic"
    assert first.attributes["gen_ai.request.model"] == "claude-sonnet-4-6"  # named by llm:request
    assert first.attributes["gen_ai.response.model"] == "claude-sonnet-4-6-20260101"
    assert first.attributes["gen_ai.response.id"] == "msg_1"
    assert first.attributes["gen_ai.usage.input_tokens"] == 1000
    assert first.attributes["gen_ai.usage.output_tokens"] == 100
    assert first.attributes["gen_ai.usage.cache_read.input_tokens"] == 20
    assert first.attributes["gen_ai.response.finish_reasons"] == ["tool_use"]
    assert first.attributes["amplifier.usage.cost_usd"] == pytest.approx(0.0045)
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool.attributes["gen_ai.tool.name"] == "write_file"
    assert tool.attributes["gen_ai.tool.call.id"] == "toolu_1"
    assert turn.attributes["gen_ai.usage.input_tokens"] == 2200
    assert session.resource["service.name"] == "otel-test"


async def test_token_duration_and_cost_metrics_follow_the_genai_conventions(receiver):
    coordinator = MockCoordinator()
    cleanup = await mounted(coordinator, receiver)
    await play_turn(coordinator)
    cleanup()
    tokens = receiver.metric_points("gen_ai.client.token.usage")
    assert {point.unit for point in tokens} == {"{token}"}
    by_type = {point.attributes["gen_ai.token.type"]: point for point in tokens}
    assert by_type["input"].value == 2200 and by_type["input"].count == 2
    assert by_type["output"].value == 110
    assert by_type["input"].attributes["gen_ai.operation.name"] == "chat"
    assert by_type["input"].attributes["gen_ai.provider.name"] == "anthropic"
    assert by_type["input"].attributes["gen_ai.request.model"] == "claude-sonnet-4-6"
    [duration] = receiver.metric_points("gen_ai.client.operation.duration")
    assert duration.unit == "s" and duration.count == 2 and duration.value == pytest.approx(2.0)
    [cost] = receiver.metric_points("amplifier.client.cost")
    assert cost.value == pytest.approx(0.0045) and cost.unit == "USD"


async def test_no_prompt_answer_arguments_or_results_leave_unless_opted_in(receiver):
    coordinator = MockCoordinator()
    cleanup = await mounted(coordinator, receiver)
    await play_turn(coordinator)
    cleanup()
    assert receiver.spans()
    sent = receiver.raw_bodies()
    for mark in (b"PROMPT-MARK", b"ANSWER-MARK", b"ARG-MARK", b"RESULT-MARK", SECRET.encode()):
        assert mark not in sent
    for span in receiver.spans():
        assert not {"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments",
                    "gen_ai.tool.call.result"} & set(span.attributes)


@pytest.mark.parametrize("opt_in", ["config", "environment"])
async def test_opted_in_content_is_exported_with_secrets_masked(receiver, monkeypatch, opt_in):
    if opt_in == "environment":
        monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    coordinator = MockCoordinator()
    cleanup = await mounted(coordinator, receiver, **({"capture_content": True} if opt_in == "config" else {}))
    await play_turn(coordinator)
    cleanup()
    spans = by_name(receiver.spans())
    [turn] = spans["invoke_agent amplifier"]
    [tool] = spans["execute_tool write_file"]
    assert "PROMPT-MARK: write the report" in turn.attributes["gen_ai.input.messages"]
    assert "ANSWER-MARK done" in turn.attributes["gen_ai.output.messages"]
    assert "ARG-MARK key=[REDACTED:OTELTEST_API_KEY]" in tool.attributes["gen_ai.tool.call.arguments"]
    assert "RESULT-MARK wrote [REDACTED:OTELTEST_API_KEY]" in tool.attributes["gen_ai.tool.call.result"]
    assert SECRET.encode() not in receiver.raw_bodies()


async def test_a_secret_the_app_names_is_masked_in_error_messages_too(receiver):
    coordinator = MockCoordinator()
    coordinator.register_capability("secrets.values", {"PROFILE_TOKEN": "profile-secret-abcdef123"})
    cleanup = await mounted(coordinator, receiver)
    emit = coordinator.hooks.emit
    await emit("execution:start", {"prompt": "hi"})
    await emit("provider:request", {"provider": "openai", "model": "gpt-5", "iteration": 1})
    await emit("provider:error", {"provider": "openai", "model": "gpt-5", "status_code": 401,
                                  "error": {"type": "AuthenticationError",
                                            "message": "bad key profile-secret-abcdef123"}})
    await emit("execution:end", {"response": "", "status": "error"})
    cleanup()
    [chat] = by_name(receiver.spans())["chat gpt-5"]
    assert chat.status == "ERROR" and chat.attributes["error.type"] == "AuthenticationError"
    assert chat.status_message == "bad key [REDACTED:PROFILE_TOKEN]"
    assert chat.attributes["gen_ai.provider.name"] == "openai"
    assert b"profile-secret-abcdef123" not in receiver.raw_bodies()


async def test_a_sub_agent_session_is_a_child_of_the_task_call_that_started_it(receiver):
    parent = MockCoordinator()
    child = MockCoordinator(session=AmplifierSession({"session": {"orchestrator": "o", "context": "c"}},
                                                     session_id="child-session", parent_id="test-session"))
    parent_cleanup = await mounted(parent, receiver)
    await parent.hooks.emit("session:start", {"session_id": "test-session"})
    await parent.hooks.emit("execution:start", {"prompt": "delegate"})

    async def task_tool_call() -> None:  # one tool call = one task, as the loop runs them
        await parent.hooks.emit("tool:pre", {"tool_name": "task", "tool_input": {}, "tool_call_id": "call_task"})
        child_cleanup = await mounted(child, receiver)
        await play_turn(child)
        child_cleanup()  # the parent still runs: nothing is flushed yet
        assert receiver.spans() == []
        await parent.hooks.emit("tool:post", {"tool_name": "task", "tool_call_id": "call_task",
                                              "result": {"success": True, "output": "ok"}})

    await asyncio.ensure_future(task_tool_call())
    await parent.hooks.emit("execution:end", {"response": "done", "status": "completed"})
    await parent.hooks.emit("session:end", {"status": "completed"})
    parent_cleanup()
    spans = receiver.spans()
    [task] = [span for span in spans if span.name == "execute_tool task"]
    sessions = {span.attributes["amplifier.session.id"]: span for span in spans if span.name == "amplifier session"}
    assert sessions["child-session"].parent_span_id == task.span_id
    assert sessions["child-session"].attributes["amplifier.parent_session.id"] == "test-session"
    assert sessions["child-session"].trace_id == sessions["test-session"].trace_id
    [child_turn] = [span for span in spans if span.name == "invoke_agent amplifier"
                    and span.parent_span_id == sessions["child-session"].span_id]
    assert child_turn.attributes["gen_ai.conversation.id"] == "child-session"


async def test_a_denied_tool_call_and_an_unfinished_request_still_end_their_spans(receiver):
    coordinator = MockCoordinator()
    cleanup = await mounted(coordinator, receiver)
    emit = coordinator.hooks.emit
    await emit("execution:start", {"prompt": "x"})
    await emit("tool:error", {"tool_name": "bash", "tool_call_id": "c9",
                              "error": {"type": "ToolDenied", "msg": "denied"}})
    await emit("provider:request", {"provider": "anthropic", "model": "m", "iteration": 1})
    await emit("execution:end", {"response": "", "status": "denied"})
    cleanup()
    spans = by_name(receiver.spans())
    [tool] = spans["execute_tool bash"]
    assert tool.status == "ERROR" and tool.attributes["error.type"] == "ToolDenied"
    assert tool.status_message == ""  # the message may quote arguments: only with capture_content
    assert spans["chat m"][0].end_ns >= spans["chat m"][0].start_ns
    assert spans["invoke_agent amplifier"][0].attributes["amplifier.turn.status"] == "denied"


async def test_otel_sdk_disabled_mounts_nothing(monkeypatch, receiver):
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    coordinator = MockCoordinator()
    assert await hooks_otel.mount(coordinator, {"endpoint": receiver.endpoint}) is None
    assert coordinator.hook_registrations == []


async def test_the_collectors_own_header_token_is_masked_in_captured_tool_output(receiver, monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20collector-token-98765,x-team=a")
    coordinator = MockCoordinator()
    cleanup = await mounted(coordinator, receiver, capture_content=True)
    await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_call_id": "c1", "tool_input": {}})
    await coordinator.hooks.emit("tool:post", {"tool_name": "bash", "tool_call_id": "c1", "result": {
        "success": True, "output": "OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer collector-token-98765"}})
    cleanup()
    [tool] = by_name(receiver.spans())["execute_tool bash"]
    assert "collector-token-98765" not in tool.attributes["gen_ai.tool.call.result"]
    assert "[REDACTED:OTEL_EXPORTER_OTLP_HEADERS:authorization]" in tool.attributes["gen_ai.tool.call.result"]
    assert receiver.requests[0].headers["authorization"] == "Bearer collector-token-98765"  # the exporter sent it
