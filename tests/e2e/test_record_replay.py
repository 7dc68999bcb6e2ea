"""`amplifier run --record DIR` against the loopback fake API with the real SDKs, then `--replay DIR` with the
server stopped and no key: the same tool calls (run for real, or replayed with --replay-tools) and the same answer;
an edited prompt fails replay with exit 2 naming the message; the cassette holds no secret."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from fakeapi import ToolCall, Turn

ANSWER = "Wrote note.txt for you."


def _stream(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def _calls_and_answer(records: list[dict]) -> tuple[list[tuple[str, dict]], str]:
    calls = [(record["name"], record["input"]) for record in records if record["type"] == "tool_call"]
    return calls, records[-1]["response"]


def _without_provider_access(env: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in env.items() if not name.endswith(("_API_KEY", "_BASE_URL"))}


@pytest.fixture
def recorded(e2e_api, request: pytest.FixtureRequest) -> tuple[object, Path, str, list[dict]]:
    """A stream-json run recorded to <project>/cassette (provider from the test's parameter), server then stopped."""
    provider = getattr(request, "param", "anthropic")
    secret = f"e2e-private-{uuid.uuid4().hex}"
    e2e_api.env["E2E_PRIVATE_TOKEN"] = secret  # named like a secret: masked wherever it appears
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": "note.txt", "content": "hi\n"})]))
    server.add(Turn(text_chunks=["Wrote note.txt ", "for you."]))
    e2e_api.profile("rec", provider=provider)
    prompt = f"write a note (reference {secret})"
    result = e2e_api.run("run", "-P", "rec", "--approval", "allow", "-o", "stream-json", "--record", "cassette",
                         prompt)
    assert result.returncode == 0, result.stderr
    assert len(server.requests) == 2
    server.stop()
    return e2e_api, e2e_api.project / "cassette", prompt, _stream(result.stdout)


@pytest.mark.parametrize("recorded", ["anthropic", "openai"], indirect=True)
def test_a_recorded_run_replays_without_server_or_key(recorded) -> None:
    e2e, _, prompt, original = recorded
    calls, answer = _calls_and_answer(original)
    assert calls == [("write_file", {"file_path": "note.txt", "content": "hi\n"})] and answer == ANSWER
    (e2e.project / "note.txt").unlink()
    env = _without_provider_access(e2e.env)
    replay = e2e.run("run", "-P", "rec", "--approval", "allow", "-o", "stream-json", "--replay", "cassette", prompt,
                     env=env)
    e2e.env = env
    assert replay.returncode == 0, replay.stderr
    records = _stream(replay.stdout)
    assert _calls_and_answer(records) == (calls, answer)
    assert (e2e.project / "note.txt").read_text() == "hi\n"  # the tool ran for real
    deltas = "".join(record["text"] for record in records if record["type"] == "text_delta")
    assert deltas == ANSWER  # the recorded stream events are emitted again


def test_replay_tools_answers_tool_calls_from_the_cassette(recorded) -> None:
    e2e, _, prompt, original = recorded
    (e2e.project / "note.txt").unlink()
    e2e.env = _without_provider_access(e2e.env)
    replay = e2e.run("run", "-P", "rec", "--approval", "allow", "-o", "stream-json", "--replay", "cassette",
                     "--replay-tools", prompt)
    assert replay.returncode == 0, replay.stderr
    records = _stream(replay.stdout)
    assert _calls_and_answer(records) == _calls_and_answer(original)
    assert [r["success"] for r in records if r["type"] == "tool_result"] == [True]
    assert not (e2e.project / "note.txt").exists()  # the recorded result stood in for the tool


def test_an_edited_prompt_fails_replay_naming_the_message(recorded) -> None:
    e2e, _, prompt, _ = recorded
    e2e.env = _without_provider_access(e2e.env)
    replay = e2e.run("run", "-P", "rec", "--approval", "allow", "--replay", "cassette", prompt + " please")
    assert replay.returncode == 2, replay.stderr
    assert "Traceback" not in replay.stderr
    assert "request 1 to provider 'anthropic' is not in the cassette" in replay.stderr
    assert "(user) differs" in replay.stderr and "please" in replay.stderr
    edited_tool = e2e.run("run", "-P", "rec", "--approval", "deny", "-o", "json", "--replay", "cassette", prompt)
    assert edited_tool.returncode == 2, edited_tool.stderr  # the tool was denied: its result is not the recorded one
    assert "request 2" in edited_tool.stderr and "(tool) differs" in edited_tool.stderr
    assert json.loads(edited_tool.stdout.splitlines()[-1])["status"] == "error"


def test_the_cassette_holds_no_secret(recorded) -> None:
    e2e, cassette, _, _ = recorded
    text = (cassette / "cassette.jsonl").read_text()
    assert "[REDACTED:E2E_PRIVATE_TOKEN]" in text
    for secret in (e2e.env["E2E_PRIVATE_TOKEN"], e2e.env["ANTHROPIC_API_KEY"], e2e.env["OPENAI_API_KEY"]):
        assert secret not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert [line["kind"] for line in lines] == ["provider", "tool", "provider"]
    assert any(event["event"] == "content_block:delta" for event in lines[2]["events"])  # streamed: events kept


def test_bad_cassette_options_exit_2(e2e) -> None:
    e2e.profile("scripted", provider="scripted", script=[])
    missing = e2e.run("run", "-P", "scripted", "--replay", "nowhere", "hi")
    assert missing.returncode == 2 and "no cassette there" in missing.stderr and "Traceback" not in missing.stderr
    both = e2e.run("run", "-P", "scripted", "--replay", "a", "--record", "b", "hi")
    assert both.returncode == 2 and "cannot be combined" in both.stderr
    alone = e2e.run("run", "-P", "scripted", "--replay-tools", "hi")
    assert alone.returncode == 2 and "--replay-tools needs --replay" in alone.stderr


def test_sub_agents_record_and_replay_through_the_same_cassette(e2e_api) -> None:
    agents = e2e_api.home / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text("---\ndescription: a helper\n---\nCHILD-MARK: help.\n")
    e2e_api.profile("delegating", tools=("tool-filesystem", "tool-task"))
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "helper", "instruction": "help"})]),
               when=lambda request: "CHILD-MARK" not in request.system_text and request.last_user_text == "go")
    server.add(Turn(text="child done"), when=lambda request: "CHILD-MARK" in request.system_text)
    server.add(Turn(text="parent done"), when=lambda request: "CHILD-MARK" not in request.system_text
               and "child done" in request.last_tool_result_text)
    recorded = e2e_api.run("run", "-P", "delegating", "-o", "json", "--record", "cassette", "go")
    assert recorded.returncode == 0, recorded.stderr
    server.stop()
    lines = [json.loads(line) for line in (e2e_api.project / "cassette" / "cassette.jsonl").read_text().splitlines()]
    assert ["CHILD-MARK" in json.dumps(line["request"]["messages"]) for line in lines if line["kind"] == "provider"] \
        == [False, True, False]
    e2e_api.env = _without_provider_access(e2e_api.env)
    replay = e2e_api.run("run", "-P", "delegating", "-o", "json", "--replay", "cassette", "go")
    assert replay.returncode == 0, replay.stderr
    assert json.loads(replay.stdout.splitlines()[-1])["response"] == "parent done"
    assert len(e2e_api.session_dirs()) == 4  # two parents, two children: the sub-agent ran again, from the cassette
    from testkit.event_schemas import assert_transcript_valid

    for session in e2e_api.session_dirs():
        assert_transcript_valid(session / "transcript.jsonl")
