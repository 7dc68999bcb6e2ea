"""Ctrl-C (SIGINT) and `kill -9` mid-turn, then resume: the run exits 130 (SIGINT), what was done is on disk,
and the resumed transcript is one the provider accepts (tool calls without results get an interrupted result).
Synchronisation is by the server's journal and by FIFOs the tool writes to, never by sleeping."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

from fakeapi import ToolCall, Turn

from amplifier_cli.sessions.store import INTERRUPTED_RESULT

from .conftest import in_thread

WAIT = 30.0


def test_sigint_while_the_model_answers_exits_130_and_the_session_resumes(e2e_api) -> None:
    server = e2e_api.server
    gate = threading.Event()
    held = server.add(Turn(text="too late"), when_last_user_contains="slow question", gate=gate)
    server.add(Turn(text="resumed answer"), when_last_user_contains="after the interrupt")
    e2e_api.profile("fake-openai", provider="openai", tools=())
    child = e2e_api.spawn("run", "-P", "fake-openai", "slow question")
    assert held.matched.wait(WAIT), "the request never reached the server"
    child.send_signal(signal.SIGINT)
    stdout, stderr = child.communicate(timeout=WAIT)
    gate.set()
    assert child.returncode == 130, stderr
    assert stdout == ""
    assert "Interrupted" in stderr and "amplifier run --resume" in stderr

    session = e2e_api.only_session()
    assert e2e_api.metadata(session)["status"] == "cancelled"
    saved = e2e_api.transcript(session)
    assert [message["role"] for message in saved] == ["system", "user", "assistant"]
    assert "cancelled" in saved[-1]["content"][0]["text"]  # the loop's note that the turn was cut short

    result = e2e_api.run("run", "--resume", session.name[:8], "after the interrupt")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "resumed answer\n"
    assert server.requests[-1].user_texts == ["slow question", "after the interrupt"]
    assert "SYSTEM-MARKER" in server.requests[-1].system_text
    transcript = e2e_api.transcript(session)
    assert [message["role"] for message in transcript] == ["system", "user", "assistant", "user", "assistant"]
    e2e_api.assert_tool_pairs_complete(transcript)


def test_kill_9_during_a_tool_call_loses_only_the_result_and_resume_repairs_it(e2e_api) -> None:
    project: Path = e2e_api.project
    ready, release = project / "ready.fifo", project / "release.fifo"
    os.mkfifo(ready)
    os.mkfifo(release)
    server = e2e_api.server
    command = "echo started > ready.fifo && cat release.fifo"
    server.add(Turn(tool_calls=[ToolCall("bash", {"command": command}, id="toolu_blocked")]),
               when_last_user_contains="run the slow command")
    server.add(Turn(text="recovered"), when_last_user_contains="after the crash")
    e2e_api.profile("fake", tools=("tool-bash",))
    child = e2e_api.spawn("run", "-P", "fake", "run the slow command")
    try:
        assert in_thread(ready.read_text, "the bash tool to start").strip() == "started"
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=WAIT)
    finally:
        in_thread(lambda: release.write_text(""), "the blocked command to let go")  # end the orphaned `cat`
    assert child.returncode == -signal.SIGKILL

    session = e2e_api.only_session()
    saved = e2e_api.transcript(session)
    assert [message["role"] for message in saved] == ["system", "user", "assistant"]  # only the result is lost
    assert saved[-1]["tool_calls"][0]["id"] == "toolu_blocked"

    result = e2e_api.run("run", "--resume", session.name, "after the crash")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "recovered\n"
    assert "never got a result" in result.stderr
    request = server.requests[-1]
    results = [block for message in request.json["messages"] if isinstance(message["content"], list)
               for block in message["content"] if block.get("type") == "tool_result"]
    assert [block["tool_use_id"] for block in results] == ["toolu_blocked"]
    assert INTERRUPTED_RESULT in str(results[0]["content"])
    transcript = e2e_api.transcript(session)
    e2e_api.assert_tool_pairs_complete(transcript)
    assert [message["role"] for message in transcript] == ["system", "user", "assistant", "tool", "user", "assistant"]


def test_first_sigint_during_a_tool_lets_it_finish_then_stops_with_130(e2e) -> None:
    ready, release = e2e.project / "ready.fifo", e2e.project / "release.fifo"
    os.mkfifo(ready)
    os.mkfifo(release)
    command = "echo started > ready.fifo && cat release.fifo && echo tool finished"
    e2e.profile("scripted", provider="scripted", tools=("tool-bash",),
                script=[{"tool_calls": [{"name": "bash", "arguments": {"command": command}, "id": "call_slow"}]},
                        "the model must not be asked again"])
    child = e2e.spawn("run", "-P", "scripted", "run the slow command")
    assert in_thread(ready.read_text, "the bash tool to start").strip() == "started"
    child.send_signal(signal.SIGINT)

    def until_acknowledged() -> str:
        seen = ""
        while "Stopping after the running tool finishes" not in seen:
            line = child.stderr.readline()
            assert line, f"stderr ended without acknowledging Ctrl-C: {seen}"
            seen += line
        return seen

    in_thread(until_acknowledged, "the graceful-stop notice")
    in_thread(lambda: release.write_text("released\n"), "the tool to read its release")
    stdout, stderr = child.communicate(timeout=WAIT)
    assert child.returncode == 130
    assert stdout == ""
    assert "amplifier run --resume" in stderr
    transcript = e2e.transcript(e2e.only_session())
    e2e.assert_tool_pairs_complete(transcript)
    tool_result = next(message for message in transcript if message["role"] == "tool")
    assert "tool finished" in tool_result["content"]  # the running tool was allowed to complete
    assert not any("must not be asked" in str(message.get("content")) for message in transcript)
