"""One process per session: while one `amplifier` has a session open (held mid-turn on a FIFO its bash tool
reads), a second `amplifier` resuming it is refused with the session and the holder's pid, `session cleanup`
and `session delete` keep it, and once the first ends nothing it wrote is lost."""

from __future__ import annotations

import os

from .conftest import in_thread

WAIT = 30.0
HOLD = "echo started > ready.fifo && cat release.fifo"
SCRIPT = [
    {"text": "one", "match": "first question"},
    {"tool_calls": [{"name": "bash", "arguments": {"command": HOLD}, "id": "call_hold"}], "match": "hold it"},
    {"text": "held answer", "match": "released"},
    {"text": "second answer", "match": "second question"},
]


def test_a_second_process_cannot_open_a_session_that_is_open_and_nothing_is_lost(e2e) -> None:
    ready, release = e2e.project / "ready.fifo", e2e.project / "release.fifo"
    os.mkfifo(ready)
    os.mkfifo(release)
    e2e.profile("scripted", provider="scripted", script=SCRIPT, tools=("tool-bash",))
    assert e2e.run("run", "-P", "scripted", "first question").returncode == 0
    session = e2e.only_session()

    holder = e2e.spawn("run", "--resume", session.name, "hold it", cold=True)  # its pid is in the message
    try:
        assert in_thread(ready.read_text, "the first process to be mid-turn").strip() == "started"

        second = e2e.run("run", "--resume", session.name, "second question")
        assert second.returncode == 1, second.stderr
        assert session.name in second.stderr and f"process {holder.pid}" in second.stderr
        assert "Traceback" not in second.stderr and second.stdout == ""
        again = e2e.run("continue", "second question")  # `amplifier continue` in a second terminal: the same
        assert again.returncode == 1 and session.name in again.stderr

        cleanup = e2e.run("session", "cleanup", "--days", "0", "-f")
        assert cleanup.returncode == 0, cleanup.stderr
        assert f"Keeping {session.name}" in cleanup.stderr and session.is_dir()
        delete = e2e.run("session", "delete", session.name, "-f")
        assert delete.returncode == 1 and "open in another amplifier" in delete.stderr and session.is_dir()
    finally:
        in_thread(lambda: release.write_text("released\n") or "", "the held tool to read its release")
    stdout, stderr = holder.communicate(timeout=WAIT)
    assert holder.returncode == 0, stderr
    assert stdout == "held answer\n"

    transcript = e2e.transcript(session)
    assert [message["role"] for message in transcript] == [
        "system", "user", "assistant", "user", "assistant", "tool", "assistant"]
    assert "released" in transcript[5]["content"]
    after = e2e.run("run", "--resume", session.name, "second question")  # free again once the holder ended
    assert after.returncode == 0, after.stderr
    assert after.stdout == "second answer\n"
    assert [message["role"] for message in e2e.transcript(session)][-2:] == ["user", "assistant"]
