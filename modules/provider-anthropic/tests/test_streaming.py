"""StreamAccumulator on raw event dicts: event shapes, and every bad ending the SDK lets through silently."""

from __future__ import annotations

from typing import Any

import pytest
from amplifier_module_provider_anthropic.streaming import StreamAccumulator

from amplifier_core.llm_errors import InvalidToolCallError, StreamError


class Sink:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, event: str, data: dict[str, Any]) -> None:
        self.events.append((event, data))


START = {"type": "message_start", "message": {"id": "msg_1", "model": "m", "content": [],
                                              "usage": {"input_tokens": 7, "output_tokens": 1}}}


def block(index: int, content_block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": content_block}


def delta(index: int, payload: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": payload}


def stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


END = [{"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}},
       {"type": "message_stop"}]


async def feed_all(accumulator: StreamAccumulator, events: list[dict[str, Any]]) -> None:
    for event in events:
        await accumulator.feed(event)


async def test_complete_stream_yields_the_message_with_merged_usage():
    sink = Sink()
    accumulator = StreamAccumulator(sink, "anthropic", "m")
    await feed_all(accumulator, [START, block(0, {"type": "text", "text": ""}),
                                 delta(0, {"type": "text_delta", "text": "Hi"}), stop(0), *END])
    message = accumulator.final_message()
    assert message["content"] == [{"type": "text", "text": "Hi"}]
    assert message["stop_reason"] == "end_turn"
    assert message["usage"] == {"input_tokens": 7, "output_tokens": 9}


async def test_redacted_thinking_block_is_accumulated_and_announced():
    sink = Sink()
    accumulator = StreamAccumulator(sink, "anthropic", "m")
    await feed_all(accumulator, [START, block(0, {"type": "redacted_thinking", "data": "R=="}), stop(0), *END])
    assert accumulator.final_message()["content"] == [{"type": "redacted_thinking", "data": "R=="}]
    start = next(d for e, d in sink.events if e == "content_block:start")
    end = next(d for e, d in sink.events if e == "content_block:end")
    assert start["block_type"] == "redacted_thinking"
    assert end["block"] == {"type": "redacted_thinking", "data": "R=="}


async def test_signature_deltas_build_the_signature_without_emitting_events():
    sink = Sink()
    accumulator = StreamAccumulator(sink, "anthropic", "m")
    await feed_all(accumulator, [START, block(0, {"type": "thinking", "thinking": "", "signature": ""}),
                                 delta(0, {"type": "thinking_delta", "thinking": "a"}),
                                 delta(0, {"type": "signature_delta", "signature": "S1"}),
                                 delta(0, {"type": "signature_delta", "signature": "S2"}), stop(0), *END])
    assert accumulator.final_message()["content"][0]["signature"] == "S1S2"
    assert [e for e, _ in sink.events].count("thinking:delta") == 1


async def test_unknown_server_blocks_get_only_wire_block_events():
    sink = Sink()
    accumulator = StreamAccumulator(sink, "anthropic", "m")
    await feed_all(accumulator, [START, block(0, {"type": "server_tool_use", "id": "s", "name": "web_search",
                                                  "input": {}}), stop(0), *END])
    assert [e for e, _ in sink.events] == ["llm:stream_block_start", "llm:stream_block_end"]


@pytest.mark.parametrize(
    ("events", "reason"),
    [
        ([], "no message_start"),
        ([START, block(0, {"type": "text", "text": ""}), delta(0, {"type": "text_delta", "text": "x"})],
         "never closed"),
        ([START, block(0, {"type": "text", "text": ""}), stop(0)], "no stop_reason"),
        ([START, block(0, {"type": "text", "text": ""}), stop(0), END[0]], "no message_stop"),
    ],
    ids=["no-start", "open-block", "no-stop-reason", "no-message-stop"],
)
async def test_incomplete_streams_raise_stream_error(events, reason):
    accumulator = StreamAccumulator(Sink(), "anthropic", "m")
    await feed_all(accumulator, events)
    with pytest.raises(StreamError, match=reason):
        accumulator.final_message()


async def test_tool_arguments_that_are_not_json_raise_stream_error():
    sink = Sink()
    accumulator = StreamAccumulator(sink, "anthropic", "m")
    await feed_all(accumulator, [START, block(0, {"type": "tool_use", "id": "t", "name": "bash", "input": {}}),
                                 delta(0, {"type": "input_json_delta", "partial_json": '{"command": "l'})])
    await feed_all(accumulator, [stop(0), *END])
    with pytest.raises(StreamError, match="not valid JSON"):
        accumulator.final_message()
    assert "content_block:end" not in [name for name, _ in sink.events]


async def test_tool_arguments_cut_by_max_tokens_raise_a_non_retryable_invalid_tool_call_error():
    accumulator = StreamAccumulator(Sink(), "anthropic", "m")
    await feed_all(accumulator, [START, block(0, {"type": "tool_use", "id": "t", "name": "bash", "input": {}}),
                                 delta(0, {"type": "input_json_delta", "partial_json": '{"command": "l'}), stop(0),
                                 {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}},
                                 {"type": "message_stop"}])
    with pytest.raises(InvalidToolCallError, match="max_tokens") as caught:
        accumulator.final_message()
    assert caught.value.retryable is False and caught.value.raw_arguments == '{"command": "l'


async def test_delta_for_a_block_that_never_started_raises_stream_error():
    accumulator = StreamAccumulator(Sink(), "anthropic", "m")
    await accumulator.feed(START)
    with pytest.raises(StreamError, match="not open"):
        await accumulator.feed(delta(3, {"type": "text_delta", "text": "x"}))


async def test_empty_tool_arguments_become_an_empty_dict():
    accumulator = StreamAccumulator(Sink(), "anthropic", "m")
    await feed_all(accumulator, [START, block(0, {"type": "tool_use", "id": "t", "name": "now", "input": {}}),
                                 stop(0), *END])
    assert accumulator.final_message()["content"][0]["input"] == {}
