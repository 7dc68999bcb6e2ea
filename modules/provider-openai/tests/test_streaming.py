"""Stream accumulators on plain event dicts: docs/STREAMING.md events in wire order, and StreamError for
every way a stream can end badly that the SDK lets through."""

from __future__ import annotations

import pytest
from amplifier_module_provider_openai.chat_stream import ChatStreamAccumulator
from amplifier_module_provider_openai.errors import ErrorContext
from amplifier_module_provider_openai.responses_stream import ResponsesStreamAccumulator

from amplifier_core.llm_errors import InvalidToolCallError, StreamError

CONTEXT = ErrorContext(provider="openai", model="gpt-5", base_url=None, api="responses")


def responses_events(*, complete: bool = True) -> list[dict]:
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "ab"}],
                 "encrypted_content": "ENC"}
    call = {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": '{"x": 1}'}
    events = [
        {"type": "response.created", "response": {"id": "r1", "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": {**reasoning, "summary": []}},
        {"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 0, "delta": "a"},
        {"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 0, "delta": "b"},
        {"type": "response.output_item.done", "output_index": 0, "item": reasoning},
        {"type": "response.output_item.added", "output_index": 1, "item": {**call, "arguments": ""}},
        {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": '{"x": '},
        {"type": "response.function_call_arguments.delta", "output_index": 1, "delta": "1}"},
        {"type": "response.output_item.done", "output_index": 1, "item": call},
    ]
    if complete:
        events.append({"type": "response.completed", "response": {
            "id": "r1", "status": "completed", "output": [reasoning, call],
            "usage": {"input_tokens": 5, "output_tokens": 3}}})
    return events


async def feed_all(accumulator, events):
    for event in events:
        await accumulator.feed(event)
    return accumulator.chat_response()


async def test_responses_stream_emits_block_events_in_wire_order_and_returns_the_full_response(event_log):
    response = await feed_all(ResponsesStreamAccumulator(event_log.emit, CONTEXT), responses_events())
    assert event_log.names() == [
        "llm:stream_block_start", "content_block:start", "thinking:delta", "thinking:delta", "thinking:final",
        "content_block:end", "llm:stream_block_end",
        "llm:stream_block_start", "content_block:start", "content_block:delta", "content_block:delta",
        "content_block:end", "llm:stream_block_end",
    ]
    assert event_log.of("content_block:start")[1] == {"provider": "openai", "block_index": 1, "block_type": "tool_call",
                                                "tool_call_id": "c1", "tool_name": "f"}
    assert event_log.of("thinking:final") == [{"provider": "openai", "block_index": 0, "text": "ab"}]
    assert event_log.of("content_block:end")[0]["block"]["content"] == ["ENC", "rs_1"]
    assert event_log.of("content_block:end")[1]["block"] == {"type": "tool_call", "id": "c1", "name": "f",
                                                       "input": {"x": 1}}
    assert response.metadata["streamed"] is True
    assert response.tool_calls[0].arguments == {"x": 1}


async def test_responses_stream_without_completed_event_is_a_stream_error(event_log):
    accumulator = ResponsesStreamAccumulator(event_log.emit, CONTEXT)
    with pytest.raises(StreamError, match=r"no response\.completed"):
        await feed_all(accumulator, responses_events(complete=False))


async def test_responses_stream_cut_inside_an_item_names_the_item(event_log):
    accumulator = ResponsesStreamAccumulator(event_log.emit, CONTEXT)
    with pytest.raises(StreamError, match=r"cut inside output item 1 \(function_call\)"):
        await feed_all(accumulator, responses_events(complete=False)[:7])


@pytest.mark.parametrize("event", [
    {"type": "error", "code": "server_error", "message": "boom"},
    {"type": "response.failed", "response": {"error": {"code": "server_error", "message": "boom"}}},
])
async def test_responses_in_stream_error_events_raise_a_retryable_stream_error(event, event_log):
    accumulator = ResponsesStreamAccumulator(event_log.emit, CONTEXT)
    with pytest.raises(StreamError, match="boom") as raised:
        await accumulator.feed(event)
    assert raised.value.retryable is True


async def test_responses_in_stream_error_with_a_client_code_is_not_retried(event_log):
    accumulator = ResponsesStreamAccumulator(event_log.emit, CONTEXT)
    with pytest.raises(StreamError) as raised:
        await accumulator.feed({"type": "error", "code": "invalid_prompt", "message": "no"})
    assert raised.value.retryable is False


def chunk(delta: dict | None = None, finish: str | None = None, usage: dict | None = None) -> dict:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return {"id": "cc1", "model": "m", "choices": choices, "usage": usage}


async def test_chat_stream_infers_blocks_and_closes_tool_calls_at_finish(event_log):
    chunks = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"reasoning_content": "hm"}),
        chunk({"content": "Hi"}),
        chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "g", "arguments": "{}"}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a": 2}'}}]}),
        chunk({}, "tool_calls"),
        chunk(usage={"prompt_tokens": 4, "completion_tokens": 2, "total_tokens": 6}),
    ]
    response = await feed_all(ChatStreamAccumulator(event_log.emit, CONTEXT), chunks)
    starts = [(d["block_index"], d["block_type"]) for d in event_log.of("content_block:start")]
    assert starts == [(0, "thinking"), (1, "text"), (2, "tool_call"), (3, "tool_call")]
    ends = [(d["block_index"], d["block"]) for d in event_log.of("content_block:end")]
    assert ends[2] == (2, {"type": "tool_call", "id": "c1", "name": "f", "input": {"a": 2}})
    assert event_log.of("thinking:delta") == [{"provider": "openai", "block_index": 0, "delta": "hm"}]
    assert [c.arguments for c in response.tool_calls] == [{"a": 2}, {}]
    assert response.usage.input_tokens == 4
    assert response.finish_reason == "tool_calls"


async def test_chat_stream_without_finish_reason_is_a_stream_error(event_log):
    accumulator = ChatStreamAccumulator(event_log.emit, CONTEXT)
    chunks = [chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "write", "arguments": '{"a'}}]})]
    with pytest.raises(StreamError, match="inside tool call write without a finish_reason"):
        await feed_all(accumulator, chunks)


async def test_chat_stream_with_invalid_tool_json_is_a_stream_error(event_log):
    accumulator = ChatStreamAccumulator(event_log.emit, CONTEXT)
    chunks = [chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a'}}]}),
              chunk({}, "tool_calls")]
    with pytest.raises(StreamError, match="not valid JSON"):
        await feed_all(accumulator, chunks)


async def test_chat_stream_cut_by_the_length_limit_inside_tool_arguments_is_a_non_retryable_invalid_tool_call(
        event_log):
    # Retrying would pay for the same cut answer again; the user has to raise max_tokens instead.
    accumulator = ChatStreamAccumulator(event_log.emit, CONTEXT)
    chunks = [chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "write_file",
                                                                          "arguments": '{"content": "aa'}}]}),
              chunk({}, "length")]
    with pytest.raises(InvalidToolCallError, match="max_tokens") as caught:
        await feed_all(accumulator, chunks)
    assert caught.value.retryable is False and caught.value.tool_name == "write_file"
    assert "provider-openai" in str(caught.value)
