"""The installed `amplifier` command: `agents list|show`, a one-shot run that delegates (the sub-agent's work
shown indented, its session listed under the parent), and Ctrl-C while the sub-agent works."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from fakeapi import ToolCall, Turn
from testkit.agent_profiles import (
    DUMMY_KEY,
    READER_MARK,
    is_agent,
    is_parent,
    script_delegation,
    write_agent,
    write_profile,
)
from warmstart import amplifier_command

TIMEOUT = 60


def amplifier() -> list[str]:
    return amplifier_command()


def cli_env(server: Any = None) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items()
           if not name.endswith(("API_KEY", "BASE_URL", "AUTH_TOKEN"))}
    env.update({"NO_COLOR": "1", "COLUMNS": "200", "PYTHONUNBUFFERED": "1"})
    if server is not None:
        env.update({"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": DUMMY_KEY})
    return env


def run(project: Path, *args: str, server: Any = None) -> subprocess.CompletedProcess[str]:
    from testkit.trust import trust_project_now

    trust_project_now(project)  # the user's own project
    return subprocess.run([*amplifier(), *args], cwd=project, env=cli_env(server), capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=TIMEOUT, check=False)


@pytest.fixture
def project(project_dir: Path) -> Path:
    write_profile(project_dir, hooks=[{"module": "hooks-streaming-ui"}])
    write_agent(project_dir, "reader", f"{READER_MARK}: you read files.",
                frontmatter={"description": "Reads files and reports.", "model": "claude-haiku-4-5"})
    (project_dir / "data.txt").write_text("the launch code is 4711\n")
    return project_dir


def test_agents_list_and_show_print_json_and_an_unknown_name_exits_2(project):
    listed = run(project, "agents", "list", "-P", "agents-test", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [(row["name"], row["origin"], row["description"]) for row in json.loads(listed.stdout)] == [
        ("reader", "project", "Reads files and reports.")]

    shown = run(project, "agents", "show", "reader", "-P", "agents-test", "--json")
    assert shown.returncode == 0, shown.stderr
    detail = json.loads(shown.stdout)
    assert detail["instruction"] == f"{READER_MARK}: you read files." and detail["model"] == "claude-haiku-4-5"

    text = run(project, "agents", "show", "reader", "-P", "agents-test")
    assert "Model: claude-haiku-4-5" in text.stdout and "Runs with the parent's mount plan unchanged." in text.stdout

    missing = run(project, "agents", "show", "ghost", "-P", "agents-test")
    assert missing.returncode == 2
    assert "agent 'ghost' is not defined" in missing.stderr and "reader" in missing.stderr


def test_run_delegates_shows_the_child_indented_and_lists_it_under_the_parent(project, fake_api):
    child = is_agent(READER_MARK)
    script_delegation(fake_api)

    result = run(project, "run", "-P", "agents-test", "what is the code?", server=fake_api)

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Your code: 4711."
    lines = result.stderr.splitlines()
    assert any(line.startswith("    ") and "read_file" in line for line in lines), result.stderr
    assert any(line.startswith("    ") and "The code is 4711." in line for line in lines), result.stderr
    assert [r.model for r in fake_api.requests if child(r)] == ["claude-haiku-4-5"] * 2  # the agent's model
    sessions = run(project, "session", "list", "--json", "--children")
    by_parent = {row["session_id"]: row["parent_id"] for row in json.loads(sessions.stdout)}
    [parent_id] = [sid for sid, parent in by_parent.items() if parent is None]
    [child_id] = [sid for sid, parent in by_parent.items() if parent == parent_id]
    shown = run(project, "session", "show", parent_id)
    assert child_id[:8] in shown.stdout


def test_one_ctrl_c_while_the_child_waits_on_the_model_stops_it_at_once_and_both_transcripts_stay_paired(
        project, fake_api, amplifier_home):
    child = is_agent(READER_MARK)
    gate = threading.Event()
    fake_api.add(Turn(tool_calls=[ToolCall("task", {"agent": "reader", "instruction": "read data.txt"})]),
                 when=lambda r: is_parent(r) and r.last_user_text == "what is the code?")
    fake_api.add(Turn(tool_calls=[ToolCall("read_file", {"file_path": "data.txt"})]),
                 when=lambda r: child(r) and r.last_user_text == "read data.txt")
    held = fake_api.add(Turn(tool_calls=[ToolCall("read_file", {"file_path": "data.txt"})]),
                        when=lambda r: child(r) and "4711" in r.last_tool_result_text, gate=gate)
    from testkit.trust import trust_project_now

    trust_project_now(project)
    process = subprocess.Popen([*amplifier(), "run", "-P", "agents-test", "what is the code?"], cwd=project,
                               env=cli_env(fake_api), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    stopping = threading.Event()
    stderr_lines: list[str] = []

    def read_stderr() -> None:
        for line in process.stderr:
            stderr_lines.append(line)
            if "Stopping now" in line:  # the child only waits on the model: nothing to let finish
                stopping.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        assert held.matched.wait(TIMEOUT), "the child's second request never arrived"
        process.send_signal(signal.SIGINT)
        assert stopping.wait(TIMEOUT), "".join(stderr_lines)
    finally:
        gate.set()
        try:
            process.wait(TIMEOUT)
        finally:
            if process.poll() is None:
                process.kill()
    reader.join(TIMEOUT)

    assert process.returncode == 130, "".join(stderr_lines)
    sessions = amplifier_home / "data" / "sessions"
    saved = {}
    for directory in sessions.iterdir():
        meta = json.loads((directory / "metadata.json").read_text())
        lines = (directory / "transcript.jsonl").read_text().splitlines()
        saved[meta["parent_id"] is None] = (meta, [json.loads(line) for line in lines if line.strip()])
    (parent_meta, parent_messages), (child_meta, child_messages) = saved[True], saved[False]
    assert parent_meta["status"] == child_meta["status"] == "cancelled"
    for messages in (parent_messages, child_messages):
        calls = [call["id"] for m in messages if m["role"] == "assistant" for call in m.get("tool_calls") or []]
        results = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
        assert calls and calls == results
    assert "cancelled" in child_messages[-1]["content"][0]["text"]  # the loop's note: the held answer never came
    assert len(fake_api.requests) == 3  # nothing was asked of the model after the interrupt
