"""AnthropicProvider against the fake API server through the real SDK: streaming events, JSON mode, retries,
error mapping, stream faults, thinking, caching, repair announcements, models, cost."""

from __future__ import annotations

import socket
import threading
from decimal import Decimal

import pytest
from fakeapi import Fault, ToolCall, Turn, Usage

from amplifier_core import (
    AccessDeniedError,
    AuthenticationError,
    ChatRequest,
    ContextLengthError,
    InvalidRequestError,
    InvalidToolCallError,
    Message,
    NetworkError,
    NotFoundError,
    ProviderUnavailableError,
    RateLimitError,
    StreamError,
    ToolSpec,
)
from amplifier_core.message_models import response_text


def ask(text: str = "hello", *, stream: bool = True, **extra) -> ChatRequest:
    return ChatRequest(messages=[Message(role="user", content=text)], stream=stream, **extra)


# -- streaming ----------------------------------------------------------------------------------------------


async def test_streamed_text_deltas_are_emitted_before_the_response_completes(fake_api, make_provider, coordinator,
                                                                                event_log):
    gate = threading.Event()
    fake_api.add(Turn(text_chunks=["Hel", "lo, ", "world"], chunk_gate=gate))
    first_delta_while_server_held_the_rest: list[bool] = []

    async def release_rest(event, data):
        if not first_delta_while_server_held_the_rest:
            first_delta_while_server_held_the_rest.append(not gate.is_set())
        gate.set()

    coordinator.hooks.register("content_block:delta", release_rest)
    response = await make_provider().complete(ask())
    assert first_delta_while_server_held_the_rest == [True]
    assert [d["delta"] for d in event_log.of("content_block:delta")] == ["Hel", "lo, ", "world"]
    assert event_log.names().index("llm:response") > max(
        i for i, name in enumerate(event_log.names()) if name == "content_block:delta")
    assert response_text(response) == "Hello, world"
    assert response.metadata["streamed"] is True


async def test_stream_emits_block_events_in_wire_order_for_thinking_text_and_tool_call(fake_api, make_provider,
                                                                                        event_log):
    fake_api.add(Turn(thinking="think", signature="sig-42", text="Sure.",
                      tool_calls=[ToolCall("write_file", {"path": "a.txt"}, id="toolu_1")]))
    response = await make_provider().complete(ask())
    starts = event_log.of("content_block:start")
    assert [(s["block_index"], s["block_type"]) for s in starts] == [(0, "thinking"), (1, "text"), (2, "tool_call")]
    assert starts[2]["tool_call_id"] == "toolu_1" and starts[2]["tool_name"] == "write_file"
    assert "".join(d["delta"] for d in event_log.of("thinking:delta")) == "think"
    assert all(d["block_type"] != "thinking" for d in event_log.of("content_block:delta"))
    final = event_log.of("thinking:final")
    assert [(f["provider"], f["block_index"], f["text"]) for f in final] == [("anthropic", 0, "think")]
    ends = event_log.of("content_block:end")
    assert ends[0]["block"] == {"type": "thinking", "thinking": "think", "signature": "sig-42"}
    assert ends[2]["block"] == {"type": "tool_call", "id": "toolu_1", "name": "write_file", "input": {"path": "a.txt"}}
    assert [e["wire_type"] for e in event_log.of("llm:stream_block_start")] == ["thinking", "text", "tool_use"]
    assert response.tool_calls[0].arguments == {"path": "a.txt"}
    assert response.content[0].signature == "sig-42"


async def test_request_without_stream_flag_uses_json_and_emits_no_block_events(fake_api, make_provider, event_log):
    fake_api.add(Turn(text="plain answer"))
    response = await make_provider().complete(ask(stream=False))
    assert fake_api.requests[-1].stream is False
    assert response_text(response) == "plain answer" and response.metadata["streamed"] is False
    assert event_log.of("content_block:delta") == []


async def test_config_stream_false_forces_json_even_when_the_request_asks_to_stream(fake_api, make_provider):
    fake_api.add(Turn(text="plain"))
    await make_provider(stream=False).complete(ask(stream=True))
    assert fake_api.requests[-1].stream is False


async def test_llm_request_and_response_events_carry_usage_and_cost(fake_api, make_provider, event_log):
    fake_api.add(Turn(text="ok", usage=Usage(input_tokens=10, output_tokens=5, cache_read_input_tokens=100,
                                            cache_creation_input_tokens=20)))
    await make_provider().complete(ask())
    request = event_log.of("llm:request")[0]
    assert (request["provider"], request["model"], request["message_count"], request["stream"]) == (
        "anthropic", "claude-sonnet-4-6", 1, True)
    response = event_log.of("llm:response")[0]
    assert response["status"] == "ok" and isinstance(response["duration_ms"], int)
    assert response["usage"] == {"input_tokens": 110, "output_tokens": 5, "cache_read_tokens": 100,
                                 "cache_write_tokens": 20}
    assert response["cost_usd"] == "0.000210"


# -- retries ------------------------------------------------------------------------------------------------


async def test_429_retry_after_is_honoured_and_each_retry_is_announced(fake_api, make_provider, event_log,
                                                                       recorded_sleeps):
    fake_api.add(Fault.status(429, retry_after=3))
    fake_api.add(Turn(text="after the wait"))
    response = await make_provider().complete(ask())
    assert response_text(response) == "after the wait"
    retry = event_log.of("provider:retry")
    assert len(retry) == 1
    assert retry[0]["delay"] == 3.0 and retry[0]["retry_after"] == 3.0
    assert (retry[0]["provider"], retry[0]["attempt"], retry[0]["error_type"]) == ("anthropic", 1, "RateLimitError")
    assert "429" in retry[0]["message"]
    assert recorded_sleeps == [3.0]
    assert len(fake_api.requests) == 2
    assert [r.retry_count for r in fake_api.requests] == [0, 0], "the SDK's own retries must stay off"


async def test_retry_after_ms_header_is_used_for_overloaded_responses(fake_api, make_provider, event_log,
                                                                      recorded_sleeps):
    fake_api.add(Fault.status(529, retry_after_ms=1500))
    fake_api.add(Turn(text="ok"))
    await make_provider().complete(ask())
    assert event_log.of("provider:retry")[0]["error_type"] == "ProviderUnavailableError"
    assert recorded_sleeps == [1.5]


async def test_retries_stop_after_max_retries_and_raise_the_mapped_error(fake_api, make_provider, event_log):
    fake_api.add(Fault.status(500), repeat=True)
    with pytest.raises(ProviderUnavailableError):
        await make_provider(max_retries=2).complete(ask())
    assert len(fake_api.requests) == 3
    assert [r["attempt"] for r in event_log.of("provider:retry")] == [1, 2]
    assert event_log.of("llm:response")[0]["status"] == "error"


async def test_x_should_retry_false_is_not_retried(fake_api, make_provider):
    fake_api.add(Fault.status(500, should_retry=False))
    with pytest.raises(ProviderUnavailableError) as raised:
        await make_provider().complete(ask())
    assert raised.value.retryable is False
    assert len(fake_api.requests) == 1


# -- errors -------------------------------------------------------------------------------------------------


async def test_401_gives_authentication_error_naming_the_key_variable(fake_api, make_provider):
    fake_api.add(Fault.status(401, message="invalid x-api-key"))
    with pytest.raises(AuthenticationError) as raised:
        await make_provider().complete(ask())
    assert "ANTHROPIC_API_KEY" in str(raised.value)
    assert "invalid x-api-key" in str(raised.value)
    assert len(fake_api.requests) == 1, "authentication failures are not retried"


@pytest.mark.parametrize(
    ("status", "message", "expected"),
    [
        (400, "messages: field required", InvalidRequestError),
        (400, "prompt is too long: 250000 tokens > 200000 maximum", ContextLengthError),
        (403, "forbidden", AccessDeniedError),
        (404, "model: claude-nope", NotFoundError),
        (413, "request too large", ContextLengthError),
        (429, "slow down", RateLimitError),
        (500, "boom", ProviderUnavailableError),
        (529, "Overloaded", ProviderUnavailableError),
    ],
)
async def test_http_errors_map_to_kernel_error_classes(fake_api, make_provider, status, message, expected):
    fake_api.add(Fault.status(status, message=message))
    with pytest.raises(expected) as raised:
        await make_provider(max_retries=0).complete(ask(stream=status % 2 == 0))
    assert raised.value.status_code == status
    assert message in str(raised.value)
    assert type(raised.value.__cause__).__module__.startswith("anthropic")


async def test_connection_dropped_before_any_response_is_a_network_error(fake_api, make_provider):
    fake_api.add(Fault.drop())
    with pytest.raises(NetworkError):
        await make_provider(max_retries=0).complete(ask())


@pytest.mark.parametrize(
    ("fault", "phrase"),
    [
        (Fault.stream_cut(Turn(tool_calls=[ToolCall("write_file", {"path": "a.txt", "content": "x" * 40})])),
         "broke before the response completed"),
        (Fault.stream_error(Turn(text="partial")), "overloaded_error"),
        (Fault.malformed_sse(Turn(text="partial")), "malformed frame"),
        (Fault.stream_cut(Turn(text="partial text"), clean_end=True), "never closed"),
        (Fault.stream_cut(Turn(text="done"), after_frames=6, clean_end=True), "no stop_reason"),
    ],
    ids=["cut-in-tool-call", "in-stream-error", "malformed-frame", "clean-end-mid-block", "missing-stop-reason"],
)
async def test_failures_after_the_stream_began_raise_stream_error_after_stream_aborted(
    fake_api, make_provider, event_log, fault, phrase
):
    fake_api.add(fault)
    with pytest.raises(StreamError) as raised:
        await make_provider(max_retries=0).complete(ask())
    assert phrase in str(raised.value)
    names = event_log.names()
    assert "llm:stream_aborted" in names
    assert names.index("llm:stream_aborted") < names.index("llm:response")
    assert event_log.of("llm:stream_aborted")[0]["error"] == str(raised.value)
    assert event_log.of("llm:response")[0]["status"] == "error"


async def test_missing_message_stop_is_a_stream_error(fake_api, make_provider):
    frames_without_message_stop = 8  # message_start, ping, text start, 3 deltas, stop, message_delta
    fake_api.add(Fault.stream_cut(Turn(text="abcdef"), after_frames=frames_without_message_stop, clean_end=True))
    with pytest.raises(StreamError, match="no message_stop"):
        await make_provider(max_retries=0).complete(ask())


async def test_answer_cut_by_max_tokens_inside_tool_arguments_is_not_retried_and_says_to_raise_max_tokens(
        fake_api, make_provider, event_log):
    # A big write_file hits max_tokens mid-arguments: retrying would pay for the same cut answer again.
    cut_call = ToolCall("write_file", {}, id="toolu_big", argument_chunks=['{"file_path": "big.txt", "content": "aaa'])
    fake_api.add(Turn(text="Writing.", tool_calls=[cut_call], stop_reason="max_tokens"), repeat=True)
    with pytest.raises(InvalidToolCallError, match="max_tokens") as caught:
        await make_provider(max_retries=2).complete(ask())
    assert caught.value.retryable is False and caught.value.tool_name == "write_file"
    assert "max_tokens" in str(caught.value) and "provider-anthropic" in str(caught.value)
    assert len(fake_api.requests) == 1
    assert event_log.of("provider:retry") == []


async def test_text_with_lone_surrogates_is_sent_with_replacement_characters_instead_of_crashing(
        fake_api, make_provider):
    # Python decodes undecodable argv/stdin/file-name bytes to lone surrogates, which UTF-8 cannot encode.
    fake_api.add(Turn(text="ok"))
    response = await make_provider().complete(ask("caf\udce9 menu"))
    assert response_text(response) == "ok"
    assert fake_api.requests[-1].json["messages"][0]["content"][0]["text"] == "caf\ufffd menu"


async def test_connection_lost_after_message_stop_keeps_the_complete_answer_without_a_retry(
        fake_api, make_provider, event_log):
    # Everything arrived; only the end of the HTTP body was lost. Retrying would bill and show it twice.
    fake_api.add(Fault.stream_cut(Turn(text="whole answer"), after_frames=1000))
    fake_api.add(Turn(text="a second answer"))
    response = await make_provider(max_retries=1).complete(ask())
    assert response_text(response) == "whole answer"
    assert len(fake_api.requests) == 1
    assert event_log.of("llm:stream_aborted") == [] and event_log.of("provider:retry") == []


async def test_a_broken_stream_is_retried_and_the_retry_can_succeed(fake_api, make_provider, event_log):
    fake_api.add(Fault.stream_cut(Turn(text="first try")))
    fake_api.add(Turn(text="second try"))
    response = await make_provider(max_retries=1).complete(ask())
    assert response_text(response) == "second try"
    assert event_log.of("provider:retry")[0]["error_type"] == "StreamError"
    assert event_log.names().index("llm:stream_aborted") < event_log.names().index("provider:retry")


# -- request shape ------------------------------------------------------------------------------------------


async def test_thinking_config_sends_a_budget_raises_max_tokens_and_omits_temperature(fake_api, make_provider):
    fake_api.add(Turn(text="ok"))
    provider = make_provider(thinking={"enabled": True, "budget_tokens": 5000}, temperature=0.3, max_tokens=2000)
    await provider.complete(ask())
    body = fake_api.requests[-1].json
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 5000}
    assert body["max_tokens"] > 5000
    assert "temperature" not in body


async def test_reasoning_effort_on_the_request_turns_thinking_on(fake_api, make_provider):
    fake_api.add(Turn(text="ok"))
    await make_provider().complete(ask(reasoning_effort="low"))
    assert fake_api.requests[-1].json["thinking"] == {"type": "enabled", "budget_tokens": 2048}


async def test_adaptive_thinking_models_get_adaptive_thinking_without_a_budget(fake_api, make_provider):
    fake_api.add(Turn(text="ok"))
    await make_provider(default_model="claude-opus-4-6", thinking={"enabled": True}).complete(ask())
    assert fake_api.requests[-1].json["thinking"] == {"type": "adaptive"}


async def test_thinking_is_left_off_when_the_pending_tool_turn_has_no_thinking_to_send_back(fake_api, make_provider):
    # A session resumed on Anthropic after another provider called tools: the API would reject thinking.
    fake_api.add(Turn(text="ok"))
    fake_api.add(Turn(text="ok again"))
    provider = make_provider(thinking={"enabled": True})
    history = [
        Message(role="user", content="run it"),
        Message.model_validate({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "openai summary", "content": ["enc", "rs_1"]},
            {"type": "tool_call", "id": "call_1", "name": "bash", "input": {"command": "ls"}}]}),
        Message(role="tool", tool_call_id="call_1", name="bash", content="a.txt"),
    ]
    await provider.complete(ChatRequest(messages=history, stream=True))
    assert "thinking" not in fake_api.requests[-1].json
    history += [Message(role="assistant", content="Listed."), Message(role="user", content="now think")]
    await provider.complete(ChatRequest(messages=history, stream=True))
    assert fake_api.requests[-1].json["thinking"]["type"] == "enabled"


async def test_without_thinking_the_configured_temperature_is_sent(fake_api, make_provider):
    fake_api.add(Turn(text="ok"))
    await make_provider(temperature=0.0).complete(ask())
    body = fake_api.requests[-1].json
    assert body["temperature"] == 0.0 and "thinking" not in body


async def test_prompt_caching_marks_system_tools_and_last_message(fake_api, make_provider):
    fake_api.add(Turn(text="ok"))
    request = ChatRequest(
        messages=[Message(role="system", content="be brief"), Message(role="user", content="hi")],
        tools=[ToolSpec(name="bash", parameters={"type": "object"})], stream=True)
    await make_provider().complete(request)
    body = fake_api.requests[-1].json
    assert body["system"] == [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}]
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}


async def test_prompt_caching_off_sends_a_plain_system_prompt(fake_api, make_provider):
    fake_api.add(Turn(text="ok"))
    request = ChatRequest(messages=[Message(role="system", content="be brief"), Message(role="user", content="hi")])
    await make_provider(prompt_caching=False).complete(request)
    body = fake_api.requests[-1].json
    assert body["system"] == "be brief"
    assert "cache_control" not in str(body)


async def test_repair_is_announced_once_per_id_but_applied_on_every_request(fake_api, make_provider, event_log):
    fake_api.add(Turn(text="one"))
    fake_api.add(Turn(text="two"))
    history = [
        Message(role="user", content="do it"),
        Message.model_validate({"role": "assistant", "content": [
            {"type": "tool_call", "id": "toolu_lost", "name": "bash", "input": {"command": "ls"}}]}),
        Message(role="user", content="what happened?"),
    ]
    provider = make_provider()
    await provider.complete(ChatRequest(messages=history))
    await provider.complete(ChatRequest(messages=[*history, Message(role="assistant", content="one"),
                                                  Message(role="user", content="again")]))
    repaired = event_log.of("provider:tool_sequence_repaired")
    assert len(repaired) == 1
    assert repaired[0]["repairs"] == [{"tool_call_id": "toolu_lost", "tool_name": "bash"}]
    for journaled in fake_api.requests:
        result = journaled.json["messages"][2]["content"][0]
        assert result["tool_use_id"] == "toolu_lost" and result["is_error"] is True


# -- models, info, cost -------------------------------------------------------------------------------------


async def test_list_models_reads_the_api(fake_api, make_provider):
    fake_api.models = ["claude-sonnet-4-5-20250929", "claude-haiku-4-5"]
    models = await make_provider().list_models()
    assert [m.id for m in models] == ["claude-sonnet-4-5-20250929", "claude-haiku-4-5"]
    assert models[0].max_output_tokens == 64_000


async def test_list_models_falls_back_to_the_static_list_when_the_api_is_unreachable(coordinator):
    from amplifier_module_provider_anthropic import AnthropicConfig, AnthropicProvider

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    provider = AnthropicProvider(AnthropicConfig(), api_key="k", base_url=f"http://127.0.0.1:{closed_port}")
    try:
        models = await provider.list_models()
    finally:
        await provider.close()
    assert "claude-sonnet-4-5" in [m.id for m in models]


def test_get_info_describes_defaults_for_the_configured_model():
    from amplifier_module_provider_anthropic import AnthropicConfig, AnthropicProvider

    config = AnthropicConfig(default_model="claude-3-5-haiku-20241022", max_tokens=1000)
    info = AnthropicProvider(config, api_key="k").get_info()
    assert info.id == "anthropic" and info.credential_env_vars == ["ANTHROPIC_API_KEY"]
    assert info.defaults["context_window"] == 200_000
    assert info.defaults["max_output_tokens"] == 8_192
    assert info.defaults["max_tokens"] == 1000
    assert info.defaults["model"] == "claude-3-5-haiku-20241022"


async def test_session_cost_contribution_is_the_running_total(fake_api, make_provider, coordinator):
    fake_api.add(Turn(text="a", usage=Usage(input_tokens=1000, output_tokens=100)))
    fake_api.add(Turn(text="b", usage=Usage(input_tokens=1000, output_tokens=100)))
    provider = make_provider()
    coordinator.register_contributor("session.cost", provider.name, provider.session_cost)
    assert await coordinator.collect_contributions("session.cost") == []
    await provider.complete(ask())
    await provider.complete(ask())
    # 2 x (1000 * $3 + 100 * $15) per million
    assert await coordinator.collect_contributions("session.cost") == [{"cost_usd": "0.009000"}]
    assert Decimal("0.009000") == Decimal(provider.session_cost()["cost_usd"])


async def test_cost_is_unknown_for_models_without_a_price(fake_api, make_provider):
    fake_api.add(Turn(text="a"))
    provider = make_provider(default_model="fake-model-large")
    response = await provider.complete(ask())
    assert response.usage.cost_usd is None
    assert provider.session_cost() is None


def test_parse_tool_calls_returns_the_response_calls():
    from amplifier_module_provider_anthropic import AnthropicConfig, AnthropicProvider

    from amplifier_core import ChatResponse
    from amplifier_core import ToolCall as KernelToolCall

    response = ChatResponse(content=[], tool_calls=[KernelToolCall(id="1", name="bash", arguments={})])
    assert AnthropicProvider(AnthropicConfig(), api_key="k").parse_tool_calls(response) == response.tool_calls
