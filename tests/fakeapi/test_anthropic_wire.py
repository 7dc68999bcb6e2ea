"""The real anthropic SDK parses every Turn feature the fake renders as Messages JSON and SSE."""

from __future__ import annotations

import json

import anthropic
from fakeapi import FakeAPIServer, ToolCall, Turn, Usage

HELLO = [{"role": "user", "content": "hello"}]


async def test_streamed_text_arrives_in_the_scripted_chunks(fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic):
    fake_api.add(Turn(text_chunks=["Hel", "lo ", "world"]))
    async with claude.messages.stream(model="claude-x", max_tokens=50, messages=HELLO) as stream:
        pieces = [text async for text in stream.text_stream]
        final = await stream.get_final_message()
    assert pieces == ["Hel", "lo ", "world"]
    assert final.content[0].text == "Hello world"
    assert final.stop_reason == "end_turn"
    assert final.model == "claude-x"


async def test_thinking_with_signature_and_redacted_thinking_stream_as_blocks(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic
):
    fake_api.add(Turn(thinking="Let me think it over", signature="sig-123", redacted_thinking="opaque==", text="ok"))
    async with claude.messages.stream(model="m", max_tokens=50, messages=HELLO) as stream:
        kinds = [event.type async for event in stream]
        final = await stream.get_final_message()
    assert [block.type for block in final.content] == ["thinking", "redacted_thinking", "text"]
    assert final.content[0].thinking == "Let me think it over"
    assert final.content[0].signature == "sig-123"
    assert final.content[1].data == "opaque=="
    assert "thinking" in kinds and "signature" in kinds


async def test_tool_call_streams_input_json_deltas_that_parse_to_the_arguments(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic
):
    arguments = {"path": "a.txt", "content": "x" * 40}
    fake_api.add(Turn(text="writing", tool_calls=[ToolCall("write_file", arguments, id="toolu_1")]))
    async with claude.messages.stream(model="m", max_tokens=50, messages=HELLO) as stream:
        partials = [e.partial_json async for e in stream if e.type == "input_json"]
        final = await stream.get_final_message()
    assert len(partials) >= 2
    assert json.loads("".join(partials)) == arguments
    tool_use = final.content[1]
    assert (tool_use.type, tool_use.id, tool_use.name, tool_use.input) == (
        "tool_use",
        "toolu_1",
        "write_file",
        arguments,
    )
    assert final.stop_reason == "tool_use"


async def test_usage_reports_input_output_and_cache_tokens(fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic):
    usage = Usage(input_tokens=11, output_tokens=7, cache_read_input_tokens=300, cache_creation_input_tokens=40)
    fake_api.add(Turn(text="a", usage=usage), repeat=True)
    async with claude.messages.stream(model="m", max_tokens=50, messages=HELLO) as stream:
        streamed = (await stream.get_final_message()).usage
    plain = (await claude.messages.create(model="m", max_tokens=50, messages=HELLO)).usage
    for reported in (streamed, plain):
        assert (reported.input_tokens, reported.output_tokens) == (11, 7)
        assert (reported.cache_read_input_tokens, reported.cache_creation_input_tokens) == (300, 40)


async def test_non_streamed_message_holds_every_block_and_stop_reason(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic
):
    fake_api.add(
        Turn(thinking="t", signature="s", text="hi", tool_calls=[ToolCall("f", {"a": 1})], stop_reason="max_tokens")
    )
    message = await claude.messages.create(model="m", max_tokens=50, messages=HELLO)
    assert [b.type for b in message.content] == ["thinking", "text", "tool_use"]
    assert message.content[2].input == {"a": 1}
    assert message.content[2].id.startswith("toolu_")
    assert message.stop_reason == "max_tokens"


async def test_raw_stream_is_chunked_sse_from_message_start_to_message_stop(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic
):
    fake_api.add(Turn(text="x"))
    response = await claude.messages.with_raw_response.create(model="m", max_tokens=5, messages=HELLO, stream=True)
    events = [event.type async for event in await response.parse()]
    assert events[0] == "message_start"
    assert events[-2:] == ["message_delta", "message_stop"]
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["transfer-encoding"] == "chunked"


async def test_models_list_returns_the_configured_models(fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic):
    fake_api.models = ["fake-a", "fake-b"]
    page = await claude.models.list()
    assert [model.id for model in page.data] == ["fake-a", "fake-b"]
    assert fake_api.requests[-1].api == "models"
