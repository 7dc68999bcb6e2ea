"""Whole AmplifierSessions (loop-basic / loop-streaming, context-simple, tool-filesystem, provider-anthropic)
against the fake API server, through the real SDK."""

from __future__ import annotations

from typing import Any

import pytest
from fakeapi import Fault, ToolCall, Turn
from sessionkit import FAST_RETRIES, SleepRecorder, provider_session_plan

from amplifier_core import AuthenticationError, StreamError

SIGNATURE = "EqQBCkYIBxgCKkD+/verbatim=="
LOOPS = ["loop-basic", "loop-streaming"]


def plan(fake_api: Any, orchestrator: str, **provider_config: Any) -> dict[str, Any]:
    config = {"api_key": "test-key", "base_url": fake_api.base_url, **FAST_RETRIES, **provider_config}
    return provider_session_plan("provider-anthropic", config, orchestrator)


def tool_pairs_are_complete(wire_messages: list[dict[str, Any]]) -> bool:
    """Every tool_use is answered by a tool_result in the very next (user) message."""
    for position, message in enumerate(wire_messages):
        calls = [b["id"] for b in message["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
        if not calls:
            continue
        following = wire_messages[position + 1]["content"] if position + 1 < len(wire_messages) else []
        answered = {b.get("tool_use_id") for b in following if isinstance(b, dict)}
        if not set(calls) <= answered:
            return False
    return True


@pytest.mark.parametrize("orchestrator", LOOPS)
async def test_two_turn_tool_loop_writes_a_file(fake_api, tmp_path, open_session, orchestrator):
    fake_api.add(Turn(text="Writing it.", tool_calls=[ToolCall("write_file", {"file_path": "notes.txt",
                                                                               "content": "hello\n"})]),
                 when_last_user_contains="notes")
    fake_api.add(Turn(text="Done: notes.txt written."), when_last_tool_result_contains="Created")
    session, recorded = await open_session(plan(fake_api, orchestrator), tmp_path)

    answer = await session.execute("please write notes.txt")

    assert "Done: notes.txt written." in answer
    assert (tmp_path / "notes.txt").read_text() == "hello\n"
    first, second = fake_api.requests
    assert "write_file" in first.tool_names
    assert [m["role"] for m in second.json["messages"]] == ["user", "assistant", "user"]
    assert second.json["messages"][2]["content"][0]["type"] == "tool_result"
    assert tool_pairs_are_complete(second.json["messages"])
    assert first.stream is (orchestrator == "loop-streaming")
    provider_deltas = [d for d in recorded.of("content_block:delta") if d.get("provider") == "anthropic"]
    assert bool(provider_deltas) is (orchestrator == "loop-streaming")


@pytest.mark.parametrize("orchestrator", LOOPS)
async def test_thinking_signature_is_sent_back_verbatim_on_the_next_request(fake_api, tmp_path, open_session,
                                                                            orchestrator):
    fake_api.add(Turn(thinking="I should write the file first.", signature=SIGNATURE, text="On it.",
                      tool_calls=[ToolCall("write_file", {"file_path": "a.txt", "content": "a"})]),
                 when_last_user_contains="write a.txt")
    fake_api.add(Turn(text="Finished."), when_last_tool_result_contains="Created")
    session, _ = await open_session(plan(fake_api, orchestrator, thinking={"enabled": True}), tmp_path)

    await session.execute("write a.txt")

    assert fake_api.requests[0].json["thinking"]["type"] == "enabled"
    replayed = fake_api.requests[1].json["messages"][1]["content"][0]
    assert replayed == {"type": "thinking", "thinking": "I should write the file first.", "signature": SIGNATURE}


async def test_rate_limit_retry_after_is_honoured_inside_a_session(fake_api, tmp_path, open_session):
    delays = SleepRecorder()
    fake_api.add(Fault.status(429, retry_after=2))
    fake_api.add(Turn(text="Hello after waiting."))
    session, recorded = await open_session(plan(fake_api, "loop-streaming"), tmp_path, retry_sleep=delays)

    answer = await session.execute("hi")

    assert "Hello after waiting." in answer
    assert [r["delay"] for r in recorded.of("provider:retry")] == [2.0]
    assert delays == [2.0]
    assert len(fake_api.requests) == 2


async def test_stream_cut_inside_a_tool_call_is_a_stream_error_and_the_transcript_stays_consistent(
    fake_api, tmp_path, open_session
):
    cut_call = ToolCall("write_file", {"file_path": "cut.txt", "content": "never written " * 5},
                        argument_chunks=['{"file_path": "cut.txt", ', '"content": "never ', 'written"}'])
    fake_api.add(Fault.stream_cut(Turn(text="Writing.", tool_calls=[cut_call]), after_frames=9),
                 when_last_user_contains="write cut.txt")
    fake_api.add(Turn(text="Recovered."), when_last_user_contains="try again")
    session, recorded = await open_session(plan(fake_api, "loop-streaming", max_retries=0), tmp_path)

    with pytest.raises(StreamError):
        await session.execute("write cut.txt")

    assert not (tmp_path / "cut.txt").exists()
    tool_deltas = [d["delta"] for d in recorded.of("content_block:delta") if d.get("block_type") == "tool_call"]
    assert tool_deltas == ['{"file_path": "cut.txt", '], "the stream must break inside the tool call"
    assert recorded.of("llm:stream_aborted")
    context_messages = await session.coordinator.get("context").get_messages()
    for message in context_messages:
        calls = message.get("tool_calls") or []
        answered = {m.get("tool_call_id") for m in context_messages if m.get("role") == "tool"}
        assert {call["id"] for call in calls} <= answered

    answer = await session.execute("try again")

    assert "Recovered." in answer
    retry_request = fake_api.requests[-1].json["messages"]
    assert retry_request[0]["role"] == "user"
    assert tool_pairs_are_complete(retry_request)


async def test_bad_key_in_a_session_raises_authentication_error_naming_the_variable(fake_api, tmp_path, open_session):
    fake_api.add(Fault.status(401, message="invalid x-api-key"))
    session, _ = await open_session(plan(fake_api, "loop-basic"), tmp_path)
    with pytest.raises(AuthenticationError, match="ANTHROPIC_API_KEY"):
        await session.execute("hi")
