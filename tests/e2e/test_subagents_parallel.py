"""Several sub-agents at once, against the loopback fake API with held replies: at most `subagents.max_parallel`
children wait on the model (the next starts as one finishes), their stream-json lines name their agent, and one
SIGINT while children wait on the model stops them all with exit 130 and every transcript whole. Synchronisation
is by the server's journal and the run's own stream-json lines, never by sleeping."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
from typing import Any

from fakeapi import ToolCall, Turn

from .conftest import E2E, in_thread

WAIT = 30.0
CHILD_MARK = "CHILD-MARK"


def _is_child(request: Any) -> bool:
    return CHILD_MARK in request.system_text


def _is_parent(request: Any) -> bool:
    return CHILD_MARK not in request.system_text


def _with_helper_agent(e2e_api: E2E) -> None:
    agents = e2e_api.home / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(f"---\ndescription: helps\n---\n{CHILD_MARK}: do the job you are given.\n")
    e2e_api.profile("fake", tools=("tool-task",))


def _delegate(server: Any, count: int) -> None:
    """The parent's first answer: ``count`` task calls in one response."""
    calls = [ToolCall("task", {"agent": "helper", "instruction": f"job {index}"}, id=f"toolu_job{index}")
             for index in range(count)]
    server.add(Turn(tool_calls=calls), when=lambda request: _is_parent(request) and request.last_user_text == "go")


def _read_until(child: subprocess.Popen[str], wanted: Any, what: str) -> list[dict[str, Any]]:
    """stream-json lines of ``child`` up to and including the first for which ``wanted(line)`` holds."""

    def read() -> list[dict[str, Any]]:
        seen: list[dict[str, Any]] = []
        while True:
            text = child.stdout.readline()  # type: ignore[union-attr]
            assert text, f"stdout ended before {what}: {seen}"
            seen.append(json.loads(text))
            if wanted(seen[-1]):
                return seen

    return in_thread(read, what)


def test_five_children_put_four_at_the_model_and_the_fifth_after_one_finishes(e2e_api: E2E) -> None:
    from testkit.event_schemas import assert_stream_lines_valid

    _with_helper_agent(e2e_api)
    server = e2e_api.server
    _delegate(server, 5)
    gates = [threading.Event() for _ in range(4)]
    for gate in gates:
        server.add(Turn(text="held child answer"), when=_is_child, gate=gate)
    server.add(Turn(text="fifth child answer"), when=_is_child)
    server.add(Turn(text="all five done"), when=lambda request: _is_parent(request) and not request.last_user_text)
    run = e2e_api.spawn("run", "-P", "fake", "-o", "stream-json", "go")
    try:
        before = _read_until(run, lambda line: line.get("type") == "agent_status" and line["status"] == "queued",
                             "a child queued for a slot")
        requests = server.wait_for_requests(5, timeout=WAIT)  # the parent's, then four children's
        assert len([request for request in requests if _is_child(request)]) == 4
        assert len(server.requests) == 5  # the fifth child waits for a slot, not at the server
        gates[0].set()
        server.wait_for_requests(6, timeout=WAIT)
        assert _is_child(server.requests[5])  # the fifth child reached the model once one had finished
    finally:
        for gate in gates:
            gate.set()
    stdout, stderr = run.communicate(timeout=WAIT)
    assert run.returncode == 0, stderr
    lines = before + assert_stream_lines_valid(stdout)
    parent_id = lines[0]["session_id"]
    assert lines[-1]["type"] == "result" and lines[-1]["response"] == "all five done"
    child_lines = [line for line in lines if line["session_id"] != parent_id]
    assert child_lines and all(line["agent"] == "helper" and line["parent_session_id"] == parent_id
                               for line in child_lines)
    assert len({line["session_id"] for line in child_lines}) == 5
    children_text = [line["text"] for line in child_lines if line["type"] == "text"]
    assert sorted(children_text) == ["fifth child answer"] + ["held child answer"] * 4
    ended = [line for line in child_lines if line["type"] == "agent_status" and line["status"] == "completed"]
    assert len(ended) == 5
    [queued] = [line["session_id"] for line in child_lines if line["type"] == "agent_status"
                and line["status"] == "queued"]
    assert [line["status"] for line in child_lines if line["type"] == "agent_status"
            and line["session_id"] == queued] == ["running", "queued", "running", "completed"]
    assert not any("agent" in line for line in lines if line["session_id"] == parent_id)


def test_a_bad_max_parallel_setting_exits_2_naming_file_and_key(e2e_api: E2E) -> None:
    _with_helper_agent(e2e_api)
    (e2e_api.home / "config" / "settings.yaml").write_text("subagents:\n  max_parallel: 0\n")
    result = e2e_api.run("run", "-P", "fake", "go")
    assert result.returncode == 2
    assert "settings.yaml" in result.stderr and "max_parallel" in result.stderr
    assert "Traceback" not in result.stderr


def test_one_sigint_while_three_children_wait_on_the_model_exits_130_with_every_transcript_whole(
        e2e_api: E2E) -> None:
    _with_helper_agent(e2e_api)
    server = e2e_api.server
    _delegate(server, 3)
    gate = threading.Event()
    server.add(Turn(text="too late"), when=_is_child, gate=gate, times=3)
    run = e2e_api.spawn("run", "-P", "fake", "go")
    try:
        server.wait_for_requests(4, timeout=WAIT)  # the parent's and three children's, all held
        run.send_signal(signal.SIGINT)
        _, stderr = run.communicate(timeout=10)  # one press is enough: no second SIGINT is sent
    finally:
        gate.set()
    assert run.returncode == 130, stderr
    assert "Stopping now" in stderr and "Ctrl-C again" not in stderr
    sessions = e2e_api.session_dirs()
    assert len(sessions) == 4
    children = [session for session in sessions if e2e_api.metadata(session).get("parent_id")]
    assert len(children) == 3
    for session in sessions:
        transcript = e2e_api.transcript(session)
        e2e_api.assert_tool_pairs_complete(transcript)
        assert transcript[-1]["role"] == "assistant"  # the loop's note that the turn was cut short
        assert e2e_api.metadata(session)["status"] == "cancelled"
