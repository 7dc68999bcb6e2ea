"""Whole AmplifierSessions (loop-basic / loop-streaming, context-simple, tool-filesystem, provider-openai)
against the fake API server through the real SDK, on the Responses API and on Chat Completions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakeapi import Fault, ToolCall, Turn
from sessionkit import FAST_RETRIES, SleepRecorder, provider_session_plan

from amplifier_core import AuthenticationError, StreamError

ENCRYPTED = "gAAAAABo+verbatim/reasoning==\u00e9"
LOOPS = ["loop-basic", "loop-streaming"]
APIS = ["responses", "chat"]


def plan(fake_api: Any, orchestrator: str, workdir: Path, **provider_config: Any) -> dict[str, Any]:
    config = {"api_key": "test-key", "base_url": fake_api.openai_base_url, "default_model": "gpt-5-mini",
              **FAST_RETRIES, **provider_config}
    return provider_session_plan("provider-openai", config, orchestrator,
                                 filesystem_config={"working_dir": str(workdir)})


def wire_conversation(body: dict[str, Any]) -> list[dict[str, Any]]:
    return body.get("input") or body.get("messages") or []


def calls_and_results(body: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(tool call ids, tool result ids) in a request body of either API."""
    calls, results = [], []
    for item in wire_conversation(body):
        if item.get("type") == "function_call":
            calls.append(item["call_id"])
        elif item.get("type") == "function_call_output" or item.get("role") == "tool":
            results.append(item.get("call_id") or item.get("tool_call_id"))
        for call in item.get("tool_calls") or []:
            calls.append(call["id"])
    return calls, results


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("orchestrator", LOOPS)
async def test_two_turn_tool_loop_writes_a_file(fake_api, tmp_path, open_session, orchestrator, api):
    fake_api.add(Turn(text="Writing it.", tool_calls=[ToolCall("write_file", {"file_path": "notes.txt",
                                                                               "content": "hello\n"})]),
                 when_last_user_contains="notes")
    fake_api.add(Turn(text="Done: notes.txt written."), when_last_tool_result_contains="Created")
    session, recorded = await open_session(plan(fake_api, orchestrator, tmp_path, api=api), tmp_path)

    answer = await session.execute("please write notes.txt")

    assert "Done: notes.txt written." in answer
    assert (tmp_path / "notes.txt").read_text() == "hello\n"
    first, second = fake_api.requests
    assert first.api == api and "write_file" in first.tool_names
    calls, results = calls_and_results(second.json)
    assert len(calls) == 1 and calls == results
    assert first.stream is (orchestrator == "loop-streaming")
    provider_deltas = [d for d in recorded.of("content_block:delta") if d.get("provider") == "openai"]
    assert bool(provider_deltas) is (orchestrator == "loop-streaming")


@pytest.mark.parametrize("orchestrator", LOOPS)
async def test_reasoning_encrypted_content_is_sent_back_verbatim_on_the_next_request(fake_api, tmp_path,
                                                                                     open_session, orchestrator):
    fake_api.add(Turn(thinking="Write the file first.", signature=ENCRYPTED, text="On it.",
                      tool_calls=[ToolCall("write_file", {"file_path": "a.txt", "content": "a"})]),
                 when_last_user_contains="write a.txt")
    fake_api.add(Turn(text="Finished."), when_last_tool_result_contains="Created")
    session, _ = await open_session(plan(fake_api, orchestrator, tmp_path, reasoning_effort="high"), tmp_path)

    await session.execute("write a.txt")

    first, second = (request.json for request in fake_api.requests)
    assert first["include"] == ["reasoning.encrypted_content"] and first["store"] is False
    [reasoning] = [item for item in second["input"] if item.get("type") == "reasoning"]
    assert reasoning["encrypted_content"] == ENCRYPTED
    assert reasoning["summary"] == [{"type": "summary_text", "text": "Write the file first."}]
    assert reasoning["id"].startswith("rs_")
    assert second["include"] == ["reasoning.encrypted_content"] and second["store"] is False
    kinds = [item.get("type") or item.get("role") for item in second["input"]]
    assert kinds == ["user", "reasoning", "assistant", "function_call", "function_call_output"]


@pytest.mark.parametrize("api", APIS)
async def test_rate_limit_retry_after_is_honoured_inside_a_session(fake_api, tmp_path, open_session, api):
    delays = SleepRecorder()
    fake_api.add(Fault.status(429, retry_after=2))
    fake_api.add(Turn(text="Hello after waiting."))
    session, recorded = await open_session(plan(fake_api, "loop-streaming", tmp_path, api=api), tmp_path,
                                           retry_sleep=delays)

    answer = await session.execute("hi")

    assert "Hello after waiting." in answer
    assert [r["delay"] for r in recorded.of("provider:retry")] == [2.0]
    assert delays == [2.0]
    assert len(fake_api.requests) == 2


@pytest.mark.parametrize("api", APIS)
async def test_stream_cut_inside_a_tool_call_is_a_stream_error_and_the_context_stays_consistent(
    fake_api, tmp_path, open_session, api
):
    cut_call = ToolCall("write_file", {"file_path": "cut.txt", "content": "never written"},
                        argument_chunks=['{"file_path": "cut.txt", ', '"content": "never ', 'written"}'])
    fake_api.add(Fault.stream_cut(Turn(tool_calls=[cut_call])), when_last_user_contains="write cut.txt")
    fake_api.add(Turn(text="Recovered."), when_last_user_contains="try again")
    session, recorded = await open_session(plan(fake_api, "loop-streaming", tmp_path, api=api, max_retries=0),
                                           tmp_path)

    with pytest.raises(StreamError):
        await session.execute("write cut.txt")

    assert not (tmp_path / "cut.txt").exists()
    tool_deltas = [d["delta"] for d in recorded.of("content_block:delta") if d.get("block_type") == "tool_call"]
    assert tool_deltas == ['{"file_path": "cut.txt", '], "the stream must break inside the tool call"
    assert recorded.of("llm:stream_aborted")
    context_messages = await session.coordinator.get("context").get_messages()
    answered = {m.get("tool_call_id") for m in context_messages if m.get("role") == "tool"}
    for message in context_messages:
        assert {call["id"] for call in message.get("tool_calls") or []} <= answered

    answer = await session.execute("try again")

    assert "Recovered." in answer
    calls, results = calls_and_results(fake_api.requests[-1].json)
    assert sorted(calls) == sorted(results)


@pytest.mark.parametrize("api", APIS)
async def test_bad_key_in_a_session_raises_authentication_error_naming_the_variable(fake_api, tmp_path,
                                                                                   open_session, api):
    fake_api.add(Fault.status(401, message="Incorrect API key provided"))
    session, _ = await open_session(plan(fake_api, "loop-basic", tmp_path, api=api), tmp_path)
    with pytest.raises(AuthenticationError, match="OPENAI_API_KEY"):
        await session.execute("hi")
