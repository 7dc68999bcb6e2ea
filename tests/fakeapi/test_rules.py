"""Rule matching, the request journal and the holds that let tests observe in-flight requests."""

from __future__ import annotations

import asyncio
import threading

import anthropic
import openai
import pytest
from fakeapi import FakeAPIServer, Fault, RecordedRequest, Turn


def user(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


async def ask(client: anthropic.AsyncAnthropic, messages: list[dict]) -> str:
    message = await client.messages.create(model="m", max_tokens=5, messages=messages)
    return message.content[0].text


async def test_unconditional_turns_answer_requests_in_the_order_added(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic
):
    fake_api.add_turns(Turn(text="first"), Turn(text="second"))
    assert [await ask(claude, user("a")), await ask(claude, user("b"))] == ["first", "second"]
    assert fake_api.unused_rules() == []


async def test_parallel_requests_get_the_answer_matching_their_prompt(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic
):
    gate = threading.Event()
    fake_api.add(Turn(text="for alpha"), when_last_user_contains="alpha", gate=gate)
    fake_api.add(Turn(text="for beta"), when_last_user_contains="beta")
    alpha = asyncio.create_task(ask(claude, user("task alpha")))
    await asyncio.to_thread(fake_api.wait_for_requests, 1)
    beta = await ask(claude, user("task beta"))  # answered while alpha is still held
    gate.set()
    assert (await alpha, beta) == ("for alpha", "for beta")


async def test_repeating_rule_answers_every_time_and_one_shot_only_once(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic
):
    fake_api.add(Turn(text="once"))
    always = fake_api.add(Turn(text="again"), repeat=True)
    answers = [await ask(claude, user(str(i))) for i in range(4)]
    assert answers == ["once", "again", "again", "again"]
    assert always.hits == 3


async def test_tool_result_matcher_reads_each_apis_tool_result_shape(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic, oai: openai.AsyncOpenAI
):
    fake_api.add(Turn(text="saw it"), when_last_tool_result_contains="wrote a.txt", times=3)
    anthropic_messages = [
        {"role": "user", "content": "write"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "w", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "wrote a.txt"}]},
    ]
    chat_messages = [
        {"role": "user", "content": "write"},
        {
            "role": "assistant",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "wrote a.txt"},
    ]
    responses_input = [
        {"role": "user", "content": "write"},
        {"type": "function_call", "call_id": "c1", "name": "w", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "wrote a.txt"},
    ]
    assert await ask(claude, anthropic_messages) == "saw it"
    chat = await oai.chat.completions.create(model="m", messages=chat_messages)
    response = await oai.responses.create(model="m", input=responses_input)
    assert (chat.choices[0].message.content, response.output_text) == ("saw it", "saw it")
    assert [r.last_user_text for r in fake_api.requests] == ["", "", ""]
    assert [r.first_user_text for r in fake_api.requests] == ["write"] * 3


async def test_unmatched_request_gets_a_500_naming_the_missing_rule_and_is_not_retried(fake_api: FakeAPIServer):
    fake_api.add(Turn(text="only for x"), when_last_user_contains="x")
    client = anthropic.AsyncAnthropic(base_url=fake_api.base_url, api_key="k", max_retries=2)
    with pytest.raises(anthropic.InternalServerError, match="no script rule matched"):
        await ask(client, user("something else"))
    await client.close()
    assert len(fake_api.unmatched) == 1
    assert fake_api.unmatched[0].last_user_text == "something else"
    with pytest.raises(AssertionError, match="never used"):
        fake_api.assert_all_used()


async def test_predicates_and_api_matchers_select_rules_and_callable_replies_see_the_request(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic, oai: openai.AsyncOpenAI
):
    fake_api.add(Turn(text="chat only"), api="chat")
    fake_api.add(lambda req: Turn(text=f"echo {req.last_user_text}"), when=lambda req: "read_file" in req.tool_names)
    tools = [{"name": "read_file", "description": "d", "input_schema": {"type": "object"}}]
    message = await claude.messages.create(model="m", max_tokens=5, messages=user("hi"), tools=tools)
    chat = await oai.chat.completions.create(model="m", messages=user("hi"))
    assert message.content[0].text == "echo hi"
    assert chat.choices[0].message.content == "chat only"


async def test_a_raising_predicate_counts_as_no_match_and_is_journaled(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic
):
    fake_api.add(Turn(text="never"), when=lambda req: 1 / 0)
    fake_api.add(Turn(text="fallback"))
    assert await ask(claude, user("x")) == "fallback"
    assert "ZeroDivisionError" in fake_api.requests[0].extra["predicate_errors"][0]


async def test_journal_records_api_path_headers_and_body(fake_api: FakeAPIServer, oai: openai.AsyncOpenAI):
    fake_api.add(Turn(text="x"))
    await oai.responses.create(model="gpt-test", input="hello", instructions="be brief")
    request: RecordedRequest = fake_api.requests[0]
    assert (request.api, request.method, request.path, request.model) == (
        "responses",
        "POST",
        "/v1/responses",
        "gpt-test",
    )
    assert request.headers["authorization"] == "Bearer test-key"
    assert request.system_text == "be brief"
    assert request.last_user_text == "hello"
    assert request.outcome == "turn"


async def test_gate_holds_the_first_byte_until_set(fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic):
    gate = threading.Event()
    rule = fake_api.add(Turn(text="late"), gate=gate)
    pending = asyncio.create_task(ask(claude, user("q")))
    assert await asyncio.to_thread(rule.matched.wait, 5)
    assert not pending.done()
    gate.set()
    assert await pending == "late"


async def test_cancelling_a_held_request_leaves_the_server_serving(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic
):
    gate = threading.Event()
    held = fake_api.add(Turn(text="never read"), gate=gate)
    fake_api.add(Turn(text="next"))
    pending = asyncio.create_task(ask(claude, user("q")))
    await asyncio.to_thread(held.matched.wait, 5)
    pending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await pending
    gate.set()
    assert await ask(claude, user("again")) == "next"


async def test_chunk_gate_lets_a_test_see_streamed_text_before_the_turn_ends(
    fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic
):
    gate = threading.Event()
    fake_api.add(Turn(text_chunks=["Hel", "lo"], chunk_gate=gate))
    async with claude.messages.stream(model="m", max_tokens=5, messages=user("q")) as stream:
        texts = stream.text_stream.__aiter__()
        assert await texts.__anext__() == "Hel"
        gate.set()
        assert [piece async for piece in texts] == ["lo"]


async def test_rule_level_delay_holds_faults_too(fake_api: FakeAPIServer, claude: anthropic.AsyncAnthropic):
    fake_api.add(Fault.status(401), delay=0.05)
    with pytest.raises(anthropic.AuthenticationError):
        await ask(claude, user("q"))


def test_wait_for_requests_times_out_with_a_clear_message(fake_api: FakeAPIServer):
    with pytest.raises(AssertionError, match="expected 1 request"):
        fake_api.wait_for_requests(1, timeout=0.05)


def test_turn_rejects_unknown_stop_reason_and_disagreeing_text():
    with pytest.raises(ValueError, match="stop_reason"):
        Turn(text="x", stop_reason="finished")
    with pytest.raises(ValueError, match="disagree"):
        Turn(text="ab", text_chunks=["a", "c"])
