"""OpenAIProvider through the real openai SDK against the fake API server, for the Responses API and Chat
Completions: requests, responses, streaming events, retries and error mapping."""

from __future__ import annotations

import asyncio
import threading
from decimal import Decimal

import pytest
from fakeapi import Fault, ToolCall, Turn, Usage

from amplifier_core.llm_errors import (
    AccessDeniedError,
    AuthenticationError,
    ContextLengthError,
    InvalidRequestError,
    NetworkError,
    NotFoundError,
    ProviderUnavailableError,
    QuotaExceededError,
    RateLimitError,
    StreamError,
)
from amplifier_core.message_models import ChatRequest, ToolSpec, response_text

APIS = ["responses", "chat"]
TOOLS = [ToolSpec(name="write_file", description="write", parameters={"type": "object"})]


def request(text: str = "hello", *, stream: bool = False, **extra) -> ChatRequest:
    return ChatRequest(messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": text}],
                       tools=TOOLS, stream=stream, **extra)


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("api", APIS)
async def test_text_and_parallel_tool_calls_come_back_with_usage_and_cost(fake_api, make_provider, event_log, api,
                                                                          stream):
    fake_api.add(Turn(text="Writing both.", tool_calls=[ToolCall("write_file", {"path": "a"}, id="c1"),
                                                        ToolCall("write_file", {"path": "b"}, id="c2")],
                      usage=Usage(input_tokens=1000, output_tokens=200, cache_read_input_tokens=3000,
                                  reasoning_tokens=50)))
    provider = make_provider(api=api)

    response = await provider.complete(request(stream=stream))

    assert response_text(response) == "Writing both."
    assert [(c.id, c.arguments) for c in provider.parse_tool_calls(response)] == [("c1", {"path": "a"}),
                                                                                  ("c2", {"path": "b"})]
    usage = response.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens, usage.reasoning_tokens) == (
        4000, 3000, 200, 50)
    # gpt-5-mini: 1000 fresh x 0.25 + 3000 cached x 0.025 + 200 out x 2, per million
    assert usage.cost_usd == Decimal("0.000725")
    assert response.metadata["streamed"] is stream
    assert response.finish_reason == "tool_calls"
    [started] = event_log.of("llm:request")
    assert {k: started[k] for k in ("provider", "model", "message_count", "stream")} == {
        "provider": "openai", "model": "gpt-5-mini", "message_count": 2, "stream": stream}
    [finished] = event_log.of("llm:response")
    assert finished["status"] == "ok" and finished["cost_usd"] == "0.00072500"
    assert finished["usage"] == {"input_tokens": 4000, "output_tokens": 200, "cache_read_tokens": 3000,
                                 "reasoning_tokens": 50}
    assert bool(event_log.of("content_block:delta")) is stream
    assert provider.session_cost() == {"cost_usd": "0.00072500"}


async def test_responses_request_is_stateless_and_asks_for_encrypted_reasoning(fake_api, make_provider):
    fake_api.add(Turn(text="ok"))
    await make_provider(reasoning_effort="low").complete(request(temperature=0))
    body = fake_api.requests[0].json
    assert body["store"] is False
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["reasoning"] == {"effort": "low", "summary": "auto"}
    assert body["instructions"] == "Be brief."
    assert body["temperature"] == 0
    assert body["tools"][0]["name"] == "write_file" and body["parallel_tool_calls"] is True


async def test_non_reasoning_model_gets_no_reasoning_parameters(fake_api, make_provider):
    fake_api.add(Turn(text="ok"))
    response = await make_provider(default_model="gpt-4o").complete(request(max_output_tokens=99))
    body = fake_api.requests[0].json
    assert "reasoning" not in body and "include" not in body
    assert body["max_output_tokens"] == 99
    assert response.usage.cost_usd is not None


async def test_unknown_model_has_no_cost_and_the_session_cost_stays_unknown(fake_api, make_provider, event_log):
    fake_api.add(Turn(text="ok"))
    provider = make_provider(default_model="llama3.2:3b", api="chat")
    response = await provider.complete(request())
    assert response.usage.cost_usd is None
    assert "cost_usd" not in event_log.of("llm:response")[0]
    assert provider.session_cost() is None


@pytest.mark.parametrize("api", APIS)
async def test_text_deltas_are_emitted_before_the_response_completes(fake_api, make_provider, coordinator, api):
    gate = threading.Event()
    fake_api.add(Turn(text_chunks=["Hel", "lo ", "world"], chunk_gate=gate))
    first_delta = asyncio.Event()
    seen: list[str] = []

    async def on_delta(event, data):
        seen.append(data["delta"])
        first_delta.set()

    coordinator.hooks.register("content_block:delta", on_delta)
    task = asyncio.create_task(make_provider(api=api).complete(request(stream=True)))
    await asyncio.wait_for(first_delta.wait(), timeout=10)
    assert seen == ["Hel"] and not task.done()
    gate.set()
    response = await asyncio.wait_for(task, timeout=10)
    assert seen == ["Hel", "lo ", "world"] and response_text(response) == "Hello world"


@pytest.mark.parametrize("api", APIS)
async def test_rate_limit_is_retried_after_the_servers_retry_after(fake_api, make_provider, event_log,
                                                                   recorded_sleeps, api):
    fake_api.add(Fault.status(429, retry_after=3))
    fake_api.add(Turn(text="finally"))

    response = await make_provider(api=api, max_retry_delay=1.0).complete(request())

    assert response_text(response) == "finally"
    [retry] = event_log.of("provider:retry")
    assert (retry["provider"], retry["attempt"], retry["delay"], retry["error_type"]) == (
        "openai", 1, 3.0, "RateLimitError")
    assert "429" in retry["message"]
    assert recorded_sleeps == [3.0]
    assert [r.retry_count for r in fake_api.requests] == [0, 0], "the SDK itself must not retry"


@pytest.mark.parametrize(("fault", "error_class", "text"), [
    (Fault.status(401, message="Incorrect API key"), AuthenticationError, "OPENAI_API_KEY"),
    (Fault.status(403), AccessDeniedError, "403"),
    (Fault.status(404, message="model missing"), NotFoundError, "default_model"),
    (Fault.status(400, message="This model's maximum context length is 8192 tokens"), ContextLengthError, "8192"),
    (Fault.status(400, message="bad field"), InvalidRequestError, "bad field"),
    (Fault.status(429, message="You exceeded your current quota"), QuotaExceededError, "quota"),
    (Fault.status(500), ProviderUnavailableError, "500"),
    (Fault.drop(), NetworkError, "base_url"),
])
@pytest.mark.parametrize("api", APIS)
async def test_http_failures_map_to_kernel_errors(fake_api, make_provider, event_log, api, fault, error_class,
                                                  text):
    fake_api.add(fault)
    with pytest.raises(error_class, match=text) as raised:
        await make_provider(api=api, max_retries=0).complete(request())
    assert type(raised.value) is error_class
    assert raised.value.provider == "openai"
    assert event_log.of("llm:response")[0]["status"] == "error"


async def test_rate_limit_error_carries_retry_after(fake_api, make_provider):
    fake_api.add(Fault.status(429, retry_after=7))
    with pytest.raises(RateLimitError) as raised:
        await make_provider(max_retries=0).complete(request())
    assert raised.value.retry_after == 7.0 and raised.value.retryable


async def test_unreachable_server_is_a_network_error_naming_the_url(make_provider):
    provider = make_provider(max_retries=0)
    provider.base_url = "http://127.0.0.1:9/v1"
    with pytest.raises(NetworkError, match=r"127\.0\.0\.1:9"):
        await provider.complete(request())


@pytest.mark.parametrize("fault", [
    Fault.stream_cut(Turn(text="partial text")),
    Fault.stream_cut(Turn(text="partial text"), clean_end=True),
    Fault.malformed_sse(Turn(text="partial text")),
    Fault.stream_error(Turn(text="partial text")),
], ids=["cut", "clean-end", "malformed", "error-event"])
@pytest.mark.parametrize("api", APIS)
async def test_failures_after_the_stream_began_are_stream_errors_announced_first(fake_api, make_provider,
                                                                                 event_log, api, fault):
    fake_api.add(fault)
    with pytest.raises(StreamError):
        await make_provider(api=api, max_retries=0).complete(request(stream=True))
    names = event_log.names()
    assert "llm:stream_aborted" in names
    assert names.index("llm:stream_aborted") < names.index("llm:response")
    assert event_log.of("llm:stream_aborted")[0]["provider"] == "openai"


@pytest.mark.parametrize("api", APIS)
async def test_a_cut_stream_is_retried_after_the_abort_is_announced(fake_api, make_provider, event_log,
                                                                    recorded_sleeps, api):
    fake_api.add(Fault.stream_cut(Turn(text="partial text")))
    fake_api.add(Turn(text="whole answer"))
    response = await make_provider(api=api).complete(request(stream=True))
    assert response_text(response) == "whole answer"
    names = event_log.names()
    assert names.index("llm:stream_aborted") < names.index("provider:retry")
    assert event_log.of("provider:retry")[0]["error_type"] == "StreamError"


@pytest.mark.parametrize("api", APIS)
async def test_text_with_lone_surrogates_is_sent_with_replacement_characters_instead_of_crashing(
        fake_api, make_provider, api):
    # Python decodes undecodable argv/stdin/file-name bytes to lone surrogates, which UTF-8 cannot encode.
    fake_api.add(Turn(text="ok"))
    response = await make_provider(api=api).complete(ChatRequest(messages=[{"role": "user", "content": "caf\udce9"}]))
    assert response_text(response) == "ok"
    assert fake_api.requests[-1].user_texts[-1] == "caf\ufffd"


@pytest.mark.parametrize("api", APIS)
async def test_connection_lost_after_the_final_event_keeps_the_complete_answer_without_a_retry(
        fake_api, make_provider, event_log, api):
    # Everything arrived; only the end of the HTTP body was lost. Retrying would bill and show it twice.
    fake_api.add(Fault.stream_cut(Turn(text="whole answer"), after_frames=1000))
    fake_api.add(Turn(text="a second answer"))
    response = await make_provider(api=api).complete(request(stream=True))
    assert response_text(response) == "whole answer"
    assert len(fake_api.requests) == 1
    assert event_log.of("llm:stream_aborted") == [] and event_log.of("provider:retry") == []


@pytest.mark.parametrize("api", APIS)
async def test_missing_tool_result_is_repaired_and_announced_once(fake_api, make_provider, event_log, api):
    fake_api.add(Turn(text="ok"), repeat=True)
    provider = make_provider(api=api)
    history = [{"role": "user", "content": "go"},
               {"role": "assistant", "content": [{"type": "tool_call", "id": "lost", "name": "bash", "input": {}}]},
               {"role": "user", "content": "what happened?"}]
    await provider.complete(ChatRequest(messages=history))
    await provider.complete(ChatRequest(messages=[*history, {"role": "assistant", "content": "ok"},
                                                  {"role": "user", "content": "and now?"}]))
    first, second = (r.json for r in fake_api.requests)
    key = "input" if api == "responses" else "messages"
    assert second[key][: len(first[key])] == first[key], "the repair is the same on every request"
    results = [m for m in first[key] if m.get("type") == "function_call_output" or m.get("role") == "tool"]
    assert len(results) == 1 and "interrupted" in str(results[0])
    assert [d["repairs"] for d in event_log.of("provider:tool_sequence_repaired")] == [
        [{"tool_call_id": "lost", "tool_name": "bash"}]]


async def test_list_models_reads_the_servers_model_list(fake_api, make_provider):
    fake_api.models = ["qwen3:8b", "llama3.2:3b"]
    models = await make_provider().list_models()
    assert [m.id for m in models] == ["llama3.2:3b", "qwen3:8b"]


async def test_list_models_falls_back_to_the_catalog_when_the_server_is_unreachable(make_provider):
    provider = make_provider()
    provider.base_url = "http://127.0.0.1:9/v1"
    models = await provider.list_models()
    assert "gpt-5.1" in [m.id for m in models]
    assert all(m.context_window > 0 for m in models)


async def test_json_schema_response_format_is_sent_in_each_apis_shape(fake_api, make_provider):
    fake_api.add(Turn(text="{}"), repeat=True)
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    wanted = {"type": "json_schema", "schema": schema, "strict": True}
    await make_provider().complete(request(response_format=wanted))
    await make_provider(api="chat", max_tokens=50).complete(request(response_format={"type": "json"}))
    responses_body, chat_body = (r.json for r in fake_api.requests)
    assert responses_body["text"] == {"format": {"type": "json_schema", "name": "response", "schema": schema,
                                                 "strict": True}}
    assert chat_body["response_format"] == {"type": "json_object"}
    assert chat_body["max_tokens"] == 50, "a compatible server (base_url set) gets the classic max_tokens"
