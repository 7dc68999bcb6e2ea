"""One whole session over the bundled modules, as a user's profile would mount them: the scripted model
writes a file, edits it, runs a shell command and answers. Asserted: the file on disk, the recorded
transcript (every tool call paired with its result) and the events.jsonl written by hooks-logging."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from amplifier_core import AmplifierSession

SCRIPT = [
    {"tool_calls": [{"id": "w1", "name": "write_file", "arguments": {"file_path": "notes.txt", "content": "alpha\n"}}]},
    {"tool_calls": [{"id": "e1", "name": "edit_file",
                     "arguments": {"file_path": "notes.txt", "old_string": "alpha", "new_string": "beta"}}]},
    {"tool_calls": [{"id": "b1", "name": "bash", "arguments": {"command": "cat notes.txt && echo ran-ok"}}]},
    {"text": "notes.txt now says beta."},
]


def _plan(orchestrator: str, workdir: Path, log_dir: Path) -> dict[str, Any]:
    return {
        "session": {"orchestrator": {"module": orchestrator}, "context": {"module": "context-simple"}},
        "providers": [{"module": "provider-scripted", "config": {"script": SCRIPT}}],
        "tools": [
            {"module": "tool-filesystem", "config": {"allowed_write_paths": [str(workdir)],
                                                     "allowed_read_paths": [str(workdir)]}},
            {"module": "tool-bash"},
        ],
        "hooks": [{"module": "hooks-logging", "config": {"log_dir": str(log_dir)}}],
    }


@pytest.mark.parametrize("orchestrator", ["loop-basic", "loop-streaming"])
async def test_scripted_model_writes_edits_runs_and_answers(orchestrator: str, tmp_path: Path, monkeypatch) -> None:
    workdir, log_dir = tmp_path / "work", tmp_path / "logs"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    session = AmplifierSession(_plan(orchestrator, workdir, log_dir))
    session.coordinator.register_capability("session.working_dir", str(workdir))
    async with session:
        assert session.failed_modules == []
        answer = await session.execute("Create notes.txt, change it, and show it")
        messages = await session.coordinator.get("context").get_messages()

    assert answer == "notes.txt now says beta."
    assert (workdir / "notes.txt").read_text() == "beta\n"

    roles = [message["role"] for message in messages]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant"]
    results = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    assert set(results) == {"w1", "e1", "b1"}
    assert "beta" in results["b1"] and "ran-ok" in results["b1"]

    events = [json.loads(line) for line in (log_dir / "events.jsonl").read_text().splitlines()]
    names = [event["event"] for event in events]
    assert names[0] == "session:start" and names[-1] == "session:end"
    assert [e["data"]["tool_name"] for e in events if e["event"] == "tool:post"] == ["write_file", "edit_file", "bash"]
    assert all(e["session_id"] == session.session_id for e in events)
    assert "orchestrator:complete" in names and "prompt:submit" in names
