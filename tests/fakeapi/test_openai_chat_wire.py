"""The real openai SDK parses Chat Completions replies: streamed text, tool-call deltas, include_usage."""

from __future__ import annotations

import json

import openai
from fakeapi import FakeAPIServer, ToolCall, Turn, Usage

HELLO = [{"role": "user", "content": "hello"}]


async def test_streamed_text_and_finish_reason(fake_api: FakeAPIServer, oai: openai.AsyncOpenAI):
    fake_api.add(Turn(text_chunks=["Hel", "lo"]))
    stream = await oai.chat.completions.create(model="gpt-x", messages=HELLO, stream=True)
    chunks = [chunk async for chunk in stream]
    assert [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content] == ["Hel", "lo"]
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert chunks[0].model == "gpt-x"


async def test_parallel_tool_calls_stream_as_indexed_argument_deltas(fake_api: FakeAPIServer, oai: openai.AsyncOpenAI):
    calls = [ToolCall("read", {"path": "a.txt"}, id="call_a"), ToolCall("read", {"path": "b.txt"}, id="call_b")]
    fake_api.add(Turn(tool_calls=calls))
    async with oai.chat.completions.stream(model="m", messages=HELLO) as stream:
        argument_deltas = [
            e for e in [event async for event in stream] if e.type == "tool_calls.function.arguments.delta"
        ]
        final = await stream.get_final_completion()
    assert len(argument_deltas) >= 4
    message = final.choices[0].message
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls] == [
        ("call_a", "read", {"path": "a.txt"}),
        ("call_b", "read", {"path": "b.txt"}),
    ]
    assert final.choices[0].finish_reason == "tool_calls"


async def test_usage_chunk_is_sent_only_when_include_usage_is_requested(
    fake_api: FakeAPIServer, oai: openai.AsyncOpenAI
):
    usage = Usage(input_tokens=20, output_tokens=6, cache_read_input_tokens=100, reasoning_tokens=3)
    fake_api.add(Turn(text="x", usage=usage), repeat=True)
    with_usage = [
        c
        async for c in await oai.chat.completions.create(
            model="m", messages=HELLO, stream=True, stream_options={"include_usage": True}
        )
    ]
    without = [c async for c in await oai.chat.completions.create(model="m", messages=HELLO, stream=True)]
    last = with_usage[-1]
    assert last.choices == []
    assert (last.usage.prompt_tokens, last.usage.completion_tokens, last.usage.total_tokens) == (120, 6, 126)
    assert last.usage.prompt_tokens_details.cached_tokens == 100
    assert last.usage.completion_tokens_details.reasoning_tokens == 3
    assert all(chunk.usage is None for chunk in without)


async def test_non_streamed_completion_carries_text_tool_calls_and_usage(
    fake_api: FakeAPIServer, oai: openai.AsyncOpenAI
):
    fake_api.add(Turn(text="sure", tool_calls=[ToolCall("f", {"x": 1})], stop_reason="max_tokens"))
    completion = await oai.chat.completions.create(model="m", messages=HELLO)
    choice = completion.choices[0]
    assert choice.message.content == "sure"
    assert json.loads(choice.message.tool_calls[0].function.arguments) == {"x": 1}
    assert choice.finish_reason == "length"
    assert completion.usage.total_tokens == 15


async def test_models_list_uses_the_openai_page_shape(fake_api: FakeAPIServer, oai: openai.AsyncOpenAI):
    page = await oai.models.list()
    assert [model.id for model in page.data] == fake_api.models
    assert page.data[0].owned_by == "fakeapi"
