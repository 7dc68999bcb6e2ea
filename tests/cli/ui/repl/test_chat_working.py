"""The working indicator in a real terminal: shown while the model or a tool is slow, erased before the answer
and gone once the turn ends; `amplifier run` draws it on a terminal's stderr only, never into stdout."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pexpect
from fakeapi import ToolCall, Turn
from testkit.terminal import spawn_in_terminal

from .conftest import PROMPT, amplifier_binary, wait_until_read

HINT = "Ctrl-C to interrupt"
ERASE = "\r\x1b[K"


def _erased_after_last_draw(raw: str) -> bool:
    """The last drawing of the indicator in ``raw`` is followed at once by the erase sequence (after the
    terminal's own echo of a Ctrl-C, which the program does not write)."""
    tail = raw[raw.rfind(HINT) + len(HINT):]
    if not tail.startswith("\x1b[K"):
        return False
    tail = tail[len("\x1b[K"):]
    return tail.removeprefix("^C").startswith(ERASE)


def test_the_indicator_shows_while_the_model_is_slow_and_is_erased_before_the_answer_and_on_interrupt(
    spawn_chat, fake_api
) -> None:
    first_byte = threading.Event()
    fake_api.add(Turn(text="late-answer"), gate=first_byte, when_last_user_contains="slow model")
    chat = spawn_chat()
    chat.ready()
    chat.send_line("slow model please")
    chat.child.expect_exact(HINT)  # drawn while the server holds the whole response back
    assert "Working… " in chat.child.before
    seen = chat.child.before + chat.child.after
    first_byte.set()
    chat.child.expect_exact("late-answer")
    assert _erased_after_last_draw(seen + chat.child.before)
    chat.child.expect_exact(PROMPT)  # the turn may still tick (drawn at a line start) until its usage line
    after = chat.child.before
    assert HINT not in after or _erased_after_last_draw(after)

    fake_api.add(Turn(text="never-sent"), gate=threading.Event(), when_last_user_contains="stuck")
    chat.send_line("stuck model")
    chat.child.expect_exact(HINT)
    seen = chat.child.before + chat.child.after
    chat.child.sendcontrol("c")  # interrupted: the line is erased before the notices
    chat.child.expect_exact("Interrupted")
    assert _erased_after_last_draw(seen + chat.child.before)
    assert HINT not in chat.prompt()
    assert chat.exit() == 0


def test_the_indicator_names_a_slow_tool_while_it_runs_and_is_gone_after(
    spawn_chat, fake_api, chat_project: Path
) -> None:
    running, release = chat_project / "running.fifo", chat_project / "release.fifo"
    os.mkfifo(running)
    os.mkfifo(release)
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": "echo go > running.fifo && cat release.fifo"})]),
                 when_last_user_contains="slow tool")
    fake_api.add(Turn(text="tool-done-answer"), when_last_tool_result_contains="released")
    chat = spawn_chat()
    chat.ready()
    chat.send_line("slow tool please")
    chat.expect("cat release.fifo")  # the tool line
    wait_until_read(running)  # the command runs now
    chat.child.expect_exact("Running bash… ")
    chat.child.expect_exact(HINT)
    seen = chat.child.before + chat.child.after
    release.write_text("released\n")
    chat.child.expect_exact("tool-done-answer")
    assert _erased_after_last_draw(seen + chat.child.before)
    after = chat.prompt()
    assert HINT not in after
    assert chat.exit() == 0


def test_run_draws_the_indicator_on_the_terminals_stderr_and_never_into_piped_stdout(
    chat_project: Path, fake_api
) -> None:
    first_byte = threading.Event()
    fake_api.add(Turn(text="piped-answer"), gate=first_byte, when_last_user_contains="piped")
    command = f"'{amplifier_binary()}' run 'piped question' > out.txt"
    child = spawn_in_terminal("bash", ["-c", command], cwd=str(chat_project), env=dict(os.environ),
                              encoding="utf-8", dimensions=(50, 140), timeout=20)
    try:
        child.expect_exact(HINT)  # stderr is the terminal: the indicator is there
        seen = child.before + child.after
        first_byte.set()
        child.expect(pexpect.EOF)
        seen += child.before
    finally:
        child.close()
    assert child.exitstatus == 0
    assert _erased_after_last_draw(seen)
    stdout = (chat_project / "out.txt").read_text("utf-8")
    assert stdout == "piped-answer\n"  # the answer only: no spinner, no escapes


def test_run_with_stderr_not_a_terminal_draws_no_indicator(chat_project: Path, fake_api) -> None:
    import subprocess

    fake_api.add(Turn(text="quiet-answer"), when_last_user_contains="quiet")
    done = subprocess.run([amplifier_binary(), "run", "quiet question"], cwd=chat_project, capture_output=True,
                          text=True, timeout=60, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "quiet-answer\n"
    assert HINT not in done.stderr and "\x1b[K" not in done.stderr


def test_a_call_a_hook_blocked_shows_the_call_and_the_reason(spawn_chat, fake_api, chat_project: Path) -> None:
    from .conftest import PROFILE

    denying = PROFILE.replace('rules: [', 'rules: [{tool: bash, command: "rm *", action: deny}, ')
    (chat_project / ".amplifier" / "profiles" / "chat-test.yaml").write_text(denying, encoding="utf-8")
    from testkit.trust import trust_project_now

    trust_project_now(chat_project)  # the profile changed: trust what the test project now ships
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": "rm -rf build"})]), when_last_user_contains="clean")
    fake_api.add(Turn(text="could-not-clean"), when_last_tool_result_contains="rm -rf build")
    chat = spawn_chat()
    chat.ready()
    chat.send_line("clean up")
    shown = chat.expect("could-not-clean")
    assert "⏺ bash(command=rm -rf build)" in shown  # the call that was blocked
    assert "⎿ ✗ bash:" in shown.split("⏺ bash(command=rm -rf build)", 1)[1]  # then why
    chat.prompt()
    assert chat.exit() == 0
