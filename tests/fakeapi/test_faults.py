"""Each scripted fault makes the real SDKs fail the way they fail against the real services."""

from __future__ import annotations

import json

import anthropic
import httpx2
import openai
import pytest
from fakeapi import FakeAPIServer, Fault, ToolCall, Turn

HELLO = [{"role": "user", "content": "hello"}]


async def anthropic_final(client: anthropic.AsyncAnthropic):
    async with client.messages.stream(model="m", max_tokens=50, messages=HELLO) as stream:
        return await stream.get_final_message()


async def chat_final(client: openai.AsyncOpenAI):
    async with client.chat.completions.stream(model="m", messages=HELLO) as stream:
        return await stream.get_final_completion()


async def responses_final(client: openai.AsyncOpenAI):
    async with client.responses.stream(model="m", input="hello") as stream:
        return await stream.get_final_response()


# HTTP status faults -------------------------------------------------------------------------------


async def test_429_raises_rate_limit_error_with_retry_after_header(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic, oai: openai.AsyncOpenAI
):
    fake_api.add(Fault.status(429, retry_after=2), times=2)
    with pytest.raises(anthropic.RateLimitError) as claude_error:
        await claude.messages.create(model="m", max_tokens=5, messages=HELLO)
    with pytest.raises(openai.RateLimitError) as oai_error:
        await oai.chat.completions.create(model="m", messages=HELLO)
    assert claude_error.value.response.headers["retry-after"] == "2"
    assert claude_error.value.body["error"]["type"] == "rate_limit_error"
    assert oai_error.value.response.headers["retry-after"] == "2"
    assert oai_error.value.status_code == 429


async def test_sdk_retries_a_429_then_the_next_rule_answers(fake_api: FakeAPIServer):
    fake_api.add(Fault.status(429, retry_after_ms=1))
    fake_api.add(Turn(text="after retry"))
    client = anthropic.AsyncAnthropic(base_url=fake_api.base_url, api_key="k", max_retries=2)
    message = await client.messages.create(model="m", max_tokens=5, messages=HELLO)
    await client.close()
    assert message.content[0].text == "after retry"
    assert [r.retry_count for r in fake_api.requests] == [0, 1]
    assert [r.outcome for r in fake_api.requests] == ["fault:status", "turn"]


async def test_529_is_anthropic_overloaded_error_and_openai_internal_server_error(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic, oai: openai.AsyncOpenAI
):
    fake_api.add(Fault.status(529), times=2)
    with pytest.raises(anthropic.OverloadedError) as claude_error:
        await anthropic_final(claude)
    with pytest.raises(openai.InternalServerError) as oai_error:
        await responses_final(oai)
    assert claude_error.value.status_code == 529
    assert claude_error.value.body["error"]["type"] == "overloaded_error"
    assert oai_error.value.status_code == 529


@pytest.mark.parametrize(
    ("status", "anthropic_class", "openai_class"),
    [
        (400, anthropic.BadRequestError, openai.BadRequestError),
        (401, anthropic.AuthenticationError, openai.AuthenticationError),
        (500, anthropic.InternalServerError, openai.InternalServerError),
    ],
)
async def test_status_faults_map_to_the_sdk_error_classes(
    fake_api: FakeAPIServer,
    claude: anthropic.AsyncAnthropic,
    oai: openai.AsyncOpenAI,
    status: int,
    anthropic_class: type[Exception],
    openai_class: type[Exception],
):
    fake_api.add(Fault.status(status, message="scripted failure"), times=2)
    with pytest.raises(anthropic_class, match="scripted failure"):
        await claude.messages.create(model="m", max_tokens=5, messages=HELLO)
    with pytest.raises(openai_class, match="scripted failure"):
        await oai.chat.completions.create(model="m", messages=HELLO)


# faults after the stream started ------------------------------------------------------------------


async def test_in_stream_error_event_raises_generic_status_error_in_anthropic(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic
):
    fake_api.add(Fault.stream_error(Turn(text="partial"), error_type="overloaded_error", message="Overloaded"))
    with pytest.raises(anthropic.APIStatusError) as error:
        await anthropic_final(claude)
    assert not isinstance(error.value, anthropic.OverloadedError)  # the status was 200
    assert error.value.body["error"]["type"] == "overloaded_error"


async def test_in_stream_error_raises_api_error_in_chat_and_is_an_event_in_responses(
    fake_api: FakeAPIServer, oai: openai.AsyncOpenAI
):
    fake_api.add(Fault.stream_error(message="Server melted"), times=3)
    with pytest.raises(openai.APIError, match="Server melted"):
        await chat_final(oai)
    raw_events = [event async for event in await oai.responses.create(model="m", input="x", stream=True)]
    assert raw_events[-1].type == "error"
    assert raw_events[-1].message == "Server melted"
    with pytest.raises(RuntimeError, match=r"response\.completed"):
        await responses_final(oai)


async def test_stream_cut_mid_block_raises_httpx_error_in_anthropic_and_connection_error_in_openai(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic, oai: openai.AsyncOpenAI
):
    fake_api.add(Fault.stream_cut(Turn(text="never finished")), times=3)
    with pytest.raises(httpx2.RemoteProtocolError):
        await anthropic_final(claude)
    assert not issubclass(httpx2.RemoteProtocolError, anthropic.APIError)
    with pytest.raises(openai.APIConnectionError):
        await chat_final(oai)
    with pytest.raises(openai.APIConnectionError):
        await responses_final(oai)


async def test_stream_failures_after_headers_are_not_retried_by_the_sdks(fake_api: FakeAPIServer):
    fake_api.add(Fault.stream_cut(), times=2)
    claude = anthropic.AsyncAnthropic(base_url=fake_api.base_url, api_key="k", max_retries=2)
    oai = openai.AsyncOpenAI(base_url=fake_api.openai_base_url, api_key="k", max_retries=2)
    with pytest.raises(httpx2.RemoteProtocolError):
        await anthropic_final(claude)
    with pytest.raises(openai.APIConnectionError):
        await chat_final(oai)
    await claude.close()
    await oai.close()
    assert len(fake_api.requests) == 2


async def test_clean_early_end_gives_no_stop_reason_and_empty_tool_input(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic, oai: openai.AsyncOpenAI
):
    cut_in_arguments = Turn(tool_calls=[ToolCall("write_file", {"content": "long " * 10})])
    fake_api.add(Fault.stream_cut(cut_in_arguments, clean_end=True), times=3)
    message = await anthropic_final(claude)
    assert message.stop_reason is None
    assert message.content[0].input == {}
    completion = await chat_final(oai)
    assert completion.choices[0].finish_reason is None
    with pytest.raises(RuntimeError, match=r"response\.completed"):
        await responses_final(oai)


async def test_malformed_sse_frame_raises_json_decode_error(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic, oai: openai.AsyncOpenAI
):
    fake_api.add(Fault.malformed_sse(), times=3)
    with pytest.raises(json.JSONDecodeError):
        await anthropic_final(claude)
    with pytest.raises(json.JSONDecodeError):
        await chat_final(oai)
    with pytest.raises(json.JSONDecodeError):
        await responses_final(oai)


async def test_dropped_connection_before_response_is_a_connection_error(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic, oai: openai.AsyncOpenAI
):
    fake_api.add(Fault.drop(), times=2)
    with pytest.raises(anthropic.APIConnectionError):
        await claude.messages.create(model="m", max_tokens=5, messages=HELLO)
    with pytest.raises(openai.APIConnectionError):
        await oai.responses.create(model="m", input="x")
    assert [r.outcome for r in fake_api.requests] == ["fault:drop", "fault:drop"]


async def test_stream_faults_on_non_stream_requests_fail_the_json_reply(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic
):
    fake_api.add(Fault.stream_error(message="boom"))
    fake_api.add(Fault.stream_cut())
    fake_api.add(Fault.malformed_sse())
    with pytest.raises(anthropic.InternalServerError, match="boom"):
        await claude.messages.create(model="m", max_tokens=5, messages=HELLO)
    with pytest.raises(anthropic.APIConnectionError):
        await claude.messages.create(model="m", max_tokens=5, messages=HELLO)
    with pytest.raises(json.JSONDecodeError):
        await claude.messages.create(model="m", max_tokens=5, messages=HELLO)
