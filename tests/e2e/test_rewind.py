"""Checkpoints and `session rewind`: a session edits a file with edit_file, deletes one with bash and creates one
through a sub-agent; rewinding to before turn 1 brings all three back from the shadow repository under the data
dir (the project has no .git of its own), a file edited by hand since is reported as a conflict and kept unless
the user says otherwise, and the conversation is cut before the turn."""

from __future__ import annotations

import json

from fakeapi import ToolCall, Turn


def _script(e2e) -> None:
    server = e2e.server

    def parent(text: str):
        return lambda request: "CHILD-MARK" not in request.system_text and request.last_user_text == text

    server.add(Turn(tool_calls=[ToolCall("edit_file", {"file_path": "a.txt", "old_string": "alpha",
                                                       "new_string": "ALPHA"})]), when=parent("edit it"))
    server.add(Turn(tool_calls=[ToolCall("bash", {"command": "rm b.txt"})]), when=parent("delete it"))
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "helper", "instruction": "create c.txt"})]),
               when=parent("delegate"))
    server.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": "c.txt", "content": "gamma"})]),
               when=lambda request: "CHILD-MARK" in request.system_text and request.last_user_text == "create c.txt")
    server.add(Turn(text="child done"), when=lambda request: "CHILD-MARK" in request.system_text, repeat=True)
    server.add(Turn(text="ok"), when=lambda request: "CHILD-MARK" not in request.system_text, repeat=True)


def _run_three_turns(e2e) -> str:
    agents = e2e.home / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text("---\ndescription: helper\n---\nCHILD-MARK: help.\n")
    e2e.profile("fake", tools=("tool-filesystem", "tool-bash", "tool-task"))
    (e2e.project / "a.txt").write_text("alpha\n")
    (e2e.project / "b.txt").write_text("beta\n")
    (e2e.project / ".gitignore").write_text("ignored.log\n")
    (e2e.project / "ignored.log").write_text("noise\n")
    _script(e2e)
    first = e2e.run("run", "-P", "fake", "--approval", "allow", "-o", "json", "edit it")
    assert first.returncode == 0, first.stderr
    assert "checkpoints are off" not in first.stderr
    session_id = json.loads(first.stdout)["session_id"]
    for prompt in ("delete it", "delegate"):
        result = e2e.run("run", "--resume", session_id, "--approval", "allow", prompt)
        assert result.returncode == 0, result.stderr
    assert (e2e.project / "a.txt").read_text() == "ALPHA\n"
    assert not (e2e.project / "b.txt").exists() and (e2e.project / "c.txt").read_text() == "gamma"
    return session_id


def test_session_rewind_brings_back_edits_deletions_and_sub_agent_files_and_reports_hand_edits(e2e_api) -> None:
    session_id = _run_three_turns(e2e_api)
    assert not (e2e_api.project / ".git").exists()  # the shadow repository lives under the data dir
    assert any((e2e_api.home / "data" / "checkpoints").iterdir())
    (e2e_api.project / "a.txt").write_text("ALPHA and my own line\n")  # the user edits by hand

    refused = e2e_api.run("session", "rewind", session_id, "--to", "1", "--files-only")
    assert refused.returncode == 2 and "--yes" in refused.stderr  # never without asking
    assert (e2e_api.project / "a.txt").read_text() == "ALPHA and my own line\n"

    result = e2e_api.run("session", "rewind", session_id, "--to", "1", "--files-only", "--yes")
    assert result.returncode == 0, result.stderr
    assert "b.txt" in result.stdout and "c.txt" in result.stdout  # the diff it applies
    assert "conflicts): a.txt" in result.stdout
    assert (e2e_api.project / "b.txt").read_text() == "beta\n"
    assert not (e2e_api.project / "c.txt").exists()
    assert (e2e_api.project / "a.txt").read_text() == "ALPHA and my own line\n"  # kept: changed by hand
    assert (e2e_api.project / "ignored.log").read_text() == "noise\n"

    full = e2e_api.run("session", "rewind", session_id, "--to", "1", "--yes", "--overwrite-conflicts")
    assert full.returncode == 0, full.stderr
    assert (e2e_api.project / "a.txt").read_text() == "alpha\n"
    metadata = json.loads((e2e_api.sessions_dir / session_id / "metadata.json").read_text())
    assert metadata["turn_count"] == 0
    transcript = (e2e_api.sessions_dir / session_id / "transcript.jsonl").read_text()
    assert "edit it" not in transcript


def test_rewinding_only_the_conversation_leaves_the_files(e2e_api) -> None:
    session_id = _run_three_turns(e2e_api)
    result = e2e_api.run("session", "rewind", session_id, "--to", "3", "--conversation-only", "--yes")
    assert result.returncode == 0, result.stderr
    assert (e2e_api.project / "c.txt").exists()
    metadata = json.loads((e2e_api.sessions_dir / session_id / "metadata.json").read_text())
    assert metadata["turn_count"] == 2
    e2e_api.server.add(Turn(text="after rewind"))
    again = e2e_api.run("run", "--resume", session_id, "next")
    assert again.returncode == 0, again.stderr
    assert e2e_api.server.requests[-1].user_texts == ["edit it", "delete it", "next"]


def test_runs_side_by_side_in_one_project_all_keep_checkpoints_and_each_rewinds(e2e) -> None:
    runs = 6
    for number in range(runs):
        script = [{"tool_calls": [{"name": "write_file", "arguments": {"file_path": f"f{number}.txt",
                                                                        "content": f"{number}\n"}}]}, "done"]
        e2e.profile(f"writer{number}", provider="scripted", script=script, tools=("tool-filesystem",), hooks=())
    children = [e2e.spawn("run", "-P", f"writer{number}", "write") for number in range(runs)]
    outputs = [child.communicate(timeout=60) for child in children]
    for child, (_, stderr) in zip(children, outputs, strict=True):
        assert child.returncode == 0 and "checkpoints are off" not in stderr, stderr
    sessions = e2e.session_dirs()
    assert len(sessions) == runs
    for session in sessions:
        assert [line["when"] for line in map(json.loads, (session / "checkpoints.jsonl").read_text().splitlines())
                ] == ["pre", "post"]
    session = sessions[0]
    written = next(path for path in e2e.project.glob("f*.txt") if f'"{path.name}"' in (
        session / "transcript.jsonl").read_text())
    rewound = e2e.run("session", "rewind", session.name, "--to", "1", "--yes", "--files-only")
    assert rewound.returncode == 0, rewound.stderr
    assert not written.exists()  # (a file another run wrote during this one's tool call may go too: one work tree)
