"""The real openai SDK parses Responses replies: text deltas, function calls, reasoning, usage."""

from __future__ import annotations

import json

import openai
from fakeapi import FakeAPIServer, ToolCall, Turn, Usage


async def test_stream_helper_accumulates_text_and_function_call(fake_api: FakeAPIServer, oai: openai.AsyncOpenAI):
    fake_api.add(
        Turn(text_chunks=["Hi ", "there"], tool_calls=[ToolCall("get_weather", {"city": "Paris"}, id="call_9")])
    )
    async with oai.responses.stream(model="m", input="weather?") as stream:
        events = [event async for event in stream]
        final = await stream.get_final_response()
    assert [e.delta for e in events if e.type == "response.output_text.delta"] == ["Hi ", "there"]
    assert len([e for e in events if e.type == "response.function_call_arguments.delta"]) >= 2
    assert final.output_text == "Hi there"
    call = final.output[1]
    assert (call.type, call.call_id, call.name, json.loads(call.arguments)) == (
        "function_call",
        "call_9",
        "get_weather",
        {"city": "Paris"},
    )
    assert events[-1].type == "response.completed"


async def test_reasoning_items_carry_summary_and_encrypted_content(fake_api: FakeAPIServer, oai: openai.AsyncOpenAI):
    fake_api.add(Turn(thinking="step by step", signature="enc-abc", redacted_thinking="enc-hidden", text="42"))
    async with oai.responses.stream(model="m", input="q") as stream:
        summary_deltas = [e.delta async for e in stream if e.type == "response.reasoning_summary_text.delta"]
        final = await stream.get_final_response()
    reasoning, redacted = final.output[0], final.output[1]
    assert "".join(summary_deltas) == "step by step"
    assert (reasoning.type, reasoning.summary[0].text, reasoning.encrypted_content) == (
        "reasoning",
        "step by step",
        "enc-abc",
    )
    assert (redacted.type, redacted.summary, redacted.encrypted_content) == ("reasoning", [], "enc-hidden")


async def test_usage_reports_cached_and_reasoning_tokens(fake_api: FakeAPIServer, oai: openai.AsyncOpenAI):
    usage = Usage(input_tokens=5, output_tokens=9, cache_read_input_tokens=50, reasoning_tokens=4)
    fake_api.add(Turn(text="x", usage=usage), repeat=True)
    async with oai.responses.stream(model="m", input="q") as stream:
        streamed = (await stream.get_final_response()).usage
    plain = (await oai.responses.create(model="m", input="q")).usage
    for reported in (streamed, plain):
        assert (reported.input_tokens, reported.output_tokens, reported.total_tokens) == (55, 9, 64)
        assert reported.input_tokens_details.cached_tokens == 50
        assert reported.output_tokens_details.reasoning_tokens == 4


async def test_non_streamed_response_lists_output_items_in_order(fake_api: FakeAPIServer, oai: openai.AsyncOpenAI):
    fake_api.add(Turn(thinking="t", text="done", tool_calls=[ToolCall("f", {})]))
    response = await oai.responses.create(model="m", input="q")
    assert [item.type for item in response.output] == ["reasoning", "message", "function_call"]
    assert response.status == "completed"


async def test_max_tokens_turn_ends_as_an_incomplete_response(fake_api: FakeAPIServer, oai: openai.AsyncOpenAI):
    fake_api.add(Turn(text="trunc", stop_reason="max_tokens"))
    response = await oai.responses.create(model="m", input="q")
    assert response.status == "incomplete"
    assert response.incomplete_details.reason == "max_output_tokens"
