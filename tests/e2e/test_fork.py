"""Forking: `session fork ID --at N` copies the first N turns into a new session with `forked_from` in its
metadata, which answers a new prompt; `run --resume ID --fork` resumes into a fork; the original is unchanged."""

from __future__ import annotations

import json

from fakeapi import Turn


def _three_turns(e2e) -> str:
    e2e.profile("fake", tools=())
    e2e.server.add(Turn(text="answer"), repeat=True)
    first = e2e.run("run", "-P", "fake", "-o", "json", "turn-one")
    assert first.returncode == 0, first.stderr
    session_id = json.loads(first.stdout)["session_id"]
    for prompt in ("turn-two", "turn-three"):
        assert e2e.run("run", "--resume", session_id, prompt).returncode == 0
    return session_id


def _files(directory) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in directory.iterdir() if path.is_file() and path.name != ".lock"}


def test_session_fork_at_2_holds_the_first_two_turns_and_answers_a_new_prompt(e2e_api) -> None:
    original = _three_turns(e2e_api)
    original_dir = e2e_api.sessions_dir / original
    before = _files(original_dir)

    forked = e2e_api.run("session", "fork", original[:8], "--at", "2")
    assert forked.returncode == 0, forked.stderr
    new_dirs = [path for path in e2e_api.session_dirs() if path.name != original]
    assert len(new_dirs) == 1 and new_dirs[0].name in forked.stdout
    fork_dir = new_dirs[0]
    metadata = json.loads((fork_dir / "metadata.json").read_text())
    assert metadata["forked_from"] == original and metadata["forked_at_turn"] == 2 and metadata["turn_count"] == 2

    answered = e2e_api.run("run", "--resume", fork_dir.name, "turn-new")
    assert answered.returncode == 0, answered.stderr
    assert e2e_api.server.requests[-1].user_texts == ["turn-one", "turn-two", "turn-new"]
    assert _files(original_dir) == before  # the original is as it was


def test_run_resume_fork_resumes_into_a_copy(e2e_api) -> None:
    original = _three_turns(e2e_api)
    before = _files(e2e_api.sessions_dir / original)
    result = e2e_api.run("run", "--resume", original[:8], "--fork", "-o", "json", "turn-four")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["session_id"] != original
    assert e2e_api.server.requests[-1].user_texts == ["turn-one", "turn-two", "turn-three", "turn-four"]
    metadata = json.loads((e2e_api.sessions_dir / record["session_id"] / "metadata.json").read_text())
    assert metadata["forked_from"] == original
    assert _files(e2e_api.sessions_dir / original) == before


def test_forking_past_the_last_turn_exits_2_saying_how_many_there_are(e2e_api) -> None:
    original = _three_turns(e2e_api)
    result = e2e_api.run("session", "fork", original, "--at", "7")
    assert result.returncode == 2
    assert "it has 3 turn(s)" in result.stderr and "Traceback" not in result.stderr
    assert len(e2e_api.session_dirs()) == 1
