"""Resume (`run --resume PREFIX`, `session resume ID`, `continue`): the next provider request carries the whole
prior conversation, system message included, asserted from the fake server's journal."""

from __future__ import annotations

import json

from fakeapi import Turn

QUESTIONS = ("first question", "second question", "third question", "fourth question")


def _script_answers(server) -> None:
    for index, question in enumerate(QUESTIONS, start=1):
        server.add(Turn(text=f"answer number {index}"), when_last_user_contains=question)


def _assistant_texts(request) -> list[str]:
    """Assistant turns replayed in a Chat Completions request."""
    return [message["content"] for message in request.json["messages"] if message["role"] == "assistant"]


def test_run_resume_session_resume_and_continue_send_the_whole_prior_conversation(e2e_api, tmp_path) -> None:
    server = e2e_api.server
    _script_answers(server)
    e2e_api.profile("fake", provider="openai", provider_config={"api": "chat"}, tools=())
    first = e2e_api.run("run", "-P", "fake", QUESTIONS[0])
    assert first.returncode == 0, first.stderr
    session = e2e_api.only_session()
    session_id = session.name

    resumed = e2e_api.run("run", "--resume", session_id[:8], QUESTIONS[1])
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "answer number 2\n"

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    again = e2e_api.run("session", "resume", session_id, QUESTIONS[2], cwd=elsewhere)
    assert again.returncode == 0, again.stderr

    continued = e2e_api.run("continue", QUESTIONS[3])
    assert continued.returncode == 0, continued.stderr
    assert continued.stdout == "answer number 4\n"

    assert e2e_api.session_dirs() == [session]  # every command resumed the same session
    requests = server.requests
    assert len(requests) == 4
    for number, request in enumerate(requests, start=1):
        assert "SYSTEM-MARKER" in request.system_text
        assert request.user_texts == list(QUESTIONS[:number])
        assert _assistant_texts(request) == [f"answer number {index}" for index in range(1, number)]

    transcript = e2e_api.transcript(session)
    assert [message["role"] for message in transcript] == ["system"] + ["user", "assistant"] * 4
    metadata = e2e_api.metadata(session)
    assert metadata["turn_count"] == 4 and metadata["status"] == "completed" and metadata["profile"] == "fake"
    assert metadata["version"] == 1 and metadata["session_id"] == session_id and metadata["parent_id"] is None
    assert metadata["provider"] == "openai" and metadata["model"] == "gpt-5.1"
    assert metadata["cwd"] == str(e2e_api.project.resolve()) and metadata["created"] <= metadata["updated"]
    events = [json.loads(line)["event"] for line in (session / "events.jsonl").read_text().splitlines()]
    assert events.count("session:start") == 1 and events.count("session:resume") == 3


def test_a_corrupt_transcript_line_resumes_with_a_warning_naming_the_line(e2e) -> None:
    e2e.profile("scripted", provider="scripted", script=["one", {"text": "two", "match": "again"}], tools=())
    assert e2e.run("run", "-P", "scripted", "hello").returncode == 0
    session = e2e.only_session()
    with (session / "transcript.jsonl").open("a") as transcript:
        transcript.write('{"role": "user", "content": "trunc\n')
    result = e2e.run("run", "--resume", session.name, "again")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "two\n"
    assert "line 4" in result.stderr and "transcript.jsonl" in result.stderr
    roles = [message["role"] for message in e2e.transcript(session)]
    assert roles == ["system", "user", "assistant", "user", "assistant"]  # the bad line is gone once resumed


def test_resuming_a_transcript_with_corrupt_lines_keeps_the_original_bytes_beside_it(e2e) -> None:
    e2e.profile("scripted", provider="scripted", script=["one", {"text": "two", "match": "again"}], tools=())
    assert e2e.run("run", "-P", "scripted", "hello").returncode == 0
    session = e2e.only_session()
    with (session / "transcript.jsonl").open("a") as transcript:
        transcript.write('{"role": "user", "content": "half a message that may be recoverable by hand\n')
    original = (session / "transcript.jsonl").read_bytes()
    result = e2e.run("run", "--resume", session.name, "again")
    assert result.returncode == 0, result.stderr
    kept = sorted(session.glob("transcript.jsonl.corrupt*"))
    assert len(kept) == 1 and kept[0].read_bytes() == original
    assert str(kept[0]) in result.stderr


def test_session_resume_and_resume_take_the_options_continue_takes(e2e_api) -> None:
    """The issue-23 complaint: `session resume` lacked `--model` and the rest of what `continue` takes."""
    server = e2e_api.server
    _script_answers(server)
    e2e_api.profile("fake", provider="openai", provider_config={"api": "chat"}, tools=())
    assert e2e_api.run("run", "-P", "fake", QUESTIONS[0]).returncode == 0
    original = e2e_api.only_session()

    resumed = e2e_api.run("session", "resume", original.name, "--model", "fake-model-large", "-o", "json",
                          QUESTIONS[1])
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["response"] == "answer number 2"
    assert server.requests[-1].model == "fake-model-large"

    forked = e2e_api.run("resume", original.name[:8], "--fork", "-m", "fake-model-small", QUESTIONS[2])
    assert forked.returncode == 0, forked.stderr
    assert forked.stdout == "answer number 3\n" and server.requests[-1].model == "fake-model-small"
    [copy] = [path for path in e2e_api.session_dirs() if path != original]
    assert [m["role"] for m in e2e_api.transcript(original)] == ["system"] + ["user", "assistant"] * 2
    assert [m["role"] for m in e2e_api.transcript(copy)] == ["system"] + ["user", "assistant"] * 3

    refused = e2e_api.run("session", "resume", original.name, "--max-turns", "0", QUESTIONS[3])
    assert refused.returncode == 2 and "--max-turns must be at least 1" in refused.stderr
    assert "Traceback" not in refused.stderr
