"""OpenTelemetry end to end: a real `amplifier run` against the fake API exports its spans and metrics to a real
OTLP/HTTP receiver on loopback (tests/support/otlpreceiver), enabled by OTEL_EXPORTER_OTLP_ENDPOINT or by a
profile that mounts hooks-otel. Prompt text leaves only when the user opts in, a secret never; a collector that
is down or hangs neither fails the run nor holds it up; a project's own endpoint waits for trust."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import yaml
from fakeapi import ToolCall, Turn, Usage
from otlpreceiver import OTLPReceiver, ReceivedSpan, blackhole, closed_port

PROMPT = "OTEL-PROMPT-MARK write a.txt"


@pytest.fixture
def receiver() -> Iterator[OTLPReceiver]:
    with OTLPReceiver() as running:
        yield running


def script_write_then_done(server) -> None:
    call = ToolCall("write_file", {"file_path": "a.txt", "content": "TOOL-ARG-MARK"}, id="toolu_w1")
    server.add(Turn(tool_calls=[call], usage=Usage(input_tokens=1000, output_tokens=100)),
               when_last_user_contains="write")
    server.add(Turn(text="OTEL-ANSWER-MARK done.", usage=Usage(input_tokens=1200, output_tokens=10)),
               when_last_tool_result_contains="a.txt")


def otel_env(endpoint: str, **extra: str) -> dict[str, str]:
    return {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_SERVICE_NAME": "amplifier-e2e", **extra}


def named(spans: list[ReceivedSpan], name: str) -> list[ReceivedSpan]:
    return [span for span in spans if span.name == name]


def test_a_run_exports_session_turn_chat_and_tool_spans_and_genai_metrics(e2e_api, receiver) -> None:
    e2e_api.profile("fake")
    script_write_then_done(e2e_api.server)
    result = e2e_api.run("run", "-P", "fake", PROMPT, env=otel_env(receiver.endpoint))
    assert result.returncode == 0, result.stderr
    assert "OTEL-ANSWER-MARK" in result.stdout
    spans = receiver.spans()
    [session] = named(spans, "amplifier session")
    [turn] = named(spans, "invoke_agent amplifier")
    chats = [span for span in spans if span.name.startswith("chat ")]
    [tool] = named(spans, "execute_tool write_file")
    assert session.parent_span_id == "" and turn.parent_span_id == session.span_id
    assert len(chats) == 2 and {chat.parent_span_id for chat in chats} == {turn.span_id}
    assert tool.parent_span_id == turn.span_id and tool.attributes["gen_ai.tool.call.id"] == "toolu_w1"
    assert {span.trace_id for span in spans} == {session.trace_id}
    session_id = session.attributes["gen_ai.conversation.id"]
    assert e2e_api.only_session().name == session_id
    first = min(chats, key=lambda span: span.start_ns)
    assert first.kind == "CLIENT" and first.attributes["gen_ai.operation.name"] == "chat"
    assert first.attributes["gen_ai.provider.name"] == "anthropic"
    assert first.attributes["gen_ai.request.model"] and first.attributes["gen_ai.response.model"]
    assert first.attributes["gen_ai.usage.input_tokens"] == 1000
    assert first.attributes["gen_ai.usage.output_tokens"] == 100
    assert first.attributes["amplifier.usage.cost_usd"] > 0
    assert session.resource["service.name"] == "amplifier-e2e"
    tokens = {point.attributes["gen_ai.token.type"]: point
              for point in receiver.metric_points("gen_ai.client.token.usage")}
    assert tokens["input"].value == 2200 and tokens["output"].value == 110
    [duration] = receiver.metric_points("gen_ai.client.operation.duration")
    assert duration.count == 2 and duration.unit == "s"
    [cost] = receiver.metric_points("amplifier.client.cost")
    assert cost.value > 0
    sent = receiver.raw_bodies()
    for text in (b"OTEL-PROMPT-MARK", b"OTEL-ANSWER-MARK", b"TOOL-ARG-MARK", e2e_api.env["ANTHROPIC_API_KEY"].encode()):
        assert text not in sent  # no content unless opted in, and never a key


def test_opted_in_content_is_exported_and_a_secret_in_it_is_masked(e2e_api, receiver) -> None:
    e2e_api.profile("fake")
    script_write_then_done(e2e_api.server)
    key = e2e_api.env["ANTHROPIC_API_KEY"]
    prompt = f"{PROMPT} with key {key}"
    result = e2e_api.run("run", "-P", "fake", prompt,
                         env=otel_env(receiver.endpoint, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true"))
    assert result.returncode == 0, result.stderr
    spans = receiver.spans()
    [turn] = named(spans, "invoke_agent amplifier")
    [tool] = named(spans, "execute_tool write_file")
    assert "OTEL-PROMPT-MARK" in turn.attributes["gen_ai.input.messages"]
    assert "[REDACTED:ANTHROPIC_API_KEY]" in turn.attributes["gen_ai.input.messages"]
    assert "OTEL-ANSWER-MARK" in turn.attributes["gen_ai.output.messages"]
    assert "TOOL-ARG-MARK" in tool.attributes["gen_ai.tool.call.arguments"]
    assert key.encode() not in receiver.raw_bodies()


def test_a_sub_agent_session_is_in_the_same_trace_under_its_task_call(e2e_api, receiver) -> None:
    agents = e2e_api.home / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text("---\ndescription: helper\n---\nCHILD-MARK: help.\n")
    # mounted by the profile this time (no OTEL_* variable), with the receiver's endpoint in its config
    e2e_api.profile("fake", tools=("tool-filesystem", "tool-task"),
                    hooks=("hooks-streaming-ui", "hooks-logging", "hooks-redaction", "hooks-otel"),
                    hook_config={"hooks-otel": {"endpoint": receiver.endpoint}})
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "helper", "instruction": "say hi"}, id="toolu_task")]),
               when=lambda request: "CHILD-MARK" not in request.system_text and request.last_user_text == "go")
    server.add(Turn(text="child done"), when=lambda request: "CHILD-MARK" in request.system_text, repeat=True)
    server.add(Turn(text="parent done"), when=lambda request: "CHILD-MARK" not in request.system_text, repeat=True)
    result = e2e_api.run("run", "-P", "fake", "go")
    assert result.returncode == 0, result.stderr
    spans = receiver.spans()
    [task] = named(spans, "execute_tool task")
    sessions = named(spans, "amplifier session")
    [parent] = [span for span in sessions if span.parent_span_id == ""]
    [child] = [span for span in sessions if span.parent_span_id]
    assert child.parent_span_id == task.span_id and child.trace_id == parent.trace_id
    assert child.attributes["amplifier.parent_session.id"] == parent.attributes["amplifier.session.id"]
    assert child.attributes["amplifier.session.depth"] == 1
    child_turns = [span for span in named(spans, "invoke_agent amplifier") if span.parent_span_id == child.span_id]
    assert len(child_turns) == 1


def test_a_collector_that_is_down_or_hangs_neither_fails_nor_holds_up_the_run(e2e_api) -> None:
    e2e_api.profile("fake")
    e2e_api.server.add(Turn(text="OTEL-ANSWER-MARK done."), repeat=True)
    started = time.monotonic()
    down = e2e_api.run("run", "-P", "fake", "hello", env=otel_env(closed_port()))
    down_elapsed = time.monotonic() - started
    assert down.returncode == 0, down.stderr
    assert "OTEL-ANSWER-MARK" in down.stdout
    for noise in ("opentelemetry", "Failed to export", "Transient error", "Traceback"):
        assert noise not in down.stderr
    with blackhole() as endpoint:
        started = time.monotonic()
        # left to the SDK, each request would wait OTEL_EXPORTER_OTLP_TIMEOUT (60 s here) and its shutdown up to
        # 30 s; hooks-otel gives a request 2 s and the final flush 1.5 s
        hung = e2e_api.run("run", "-P", "fake", "hello", env=otel_env(endpoint, OTEL_EXPORTER_OTLP_TIMEOUT="60000"))
        hung_elapsed = time.monotonic() - started
    assert hung.returncode == 0, hung.stderr
    assert "OTEL-ANSWER-MARK" in hung.stdout and "opentelemetry" not in hung.stderr
    # measured against the same run with a collector that refuses at once, so machine load cancels out
    assert hung_elapsed - down_elapsed < 20, f"hung collector {hung_elapsed:.1f} s, refused {down_elapsed:.1f} s"


def test_an_endpoint_in_an_untrusted_projects_settings_sends_nothing_until_trusted(e2e_api, receiver) -> None:
    e2e_api.profile("fake", user=True)
    settings = {"modules": {"hooks": [{"module": "hooks-otel", "config": {"endpoint": receiver.endpoint}}]}}
    (e2e_api.project / ".amplifier" / "settings.yaml").write_text(yaml.safe_dump(settings))
    e2e_api.server.add(Turn(text="plain answer"), repeat=True)
    e2e_api.trust_project = False
    result = e2e_api.run("run", "-P", "fake", "hello")
    assert result.returncode == 0, result.stderr
    assert receiver.requests == []  # the project's endpoint is not where its requests go yet
    e2e_api.trust_project = True
    trusted = e2e_api.run("run", "-P", "fake", "hello")
    assert trusted.returncode == 0, trusted.stderr
    assert named(receiver.spans(), "amplifier session")
