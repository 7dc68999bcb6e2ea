"""`amplifier` itself takes the chat's options (`-P`, `--provider`, `--model`, `--resume`), as `claude --model`
and `codex -m` do: they choose the chat it opens."""

from __future__ import annotations

import os
import re
import sys

import pexpect
from fakeapi import Turn
from testkit.terminal import spawn_in_terminal


def test_model_option_before_any_command_opens_the_chat_with_that_model(spawn_chat, fake_api) -> None:
    fake_api.add(Turn(text="model-answer"))
    chat = spawn_chat("--model", "claude-chosen")
    chat.ready()
    chat.exchange("which model", "model-answer")
    assert chat.exit() == 0
    assert fake_api.requests[-1].model == "claude-chosen"


def test_profile_option_opens_the_chat_with_that_profile(spawn_chat) -> None:
    chat = spawn_chat("-P", "demo")  # the bundled scripted profile: no server involved
    banner = chat.expect("· session ")
    assert "[demo]" in banner
    chat.prompt()
    assert chat.exit() == 0


def test_resume_option_reopens_a_chat_with_its_history(spawn_chat, fake_api) -> None:
    fake_api.add(Turn(text="first-answer"), when_last_user_contains="turn one")
    fake_api.add(Turn(text="second-answer"), when_last_user_contains="turn two")
    first = spawn_chat()
    first.expect("· session ")
    session_id = re.match(r"\s*([0-9a-f]{8})", first.prompt()).group(1)  # the banner ends with the id
    first.exchange("turn one", "first-answer")
    assert first.exit() == 0

    resumed = spawn_chat("--resume", session_id)
    resumed.ready()
    resumed.exchange("turn two", "second-answer")
    assert resumed.exit() == 0
    assert fake_api.requests[-1].user_texts == ["turn one", "turn two"]


PROBE = """
import sys
sys.argv = ["amplifier"]
from amplifier_cli.__main__ import main
try:
    main()
finally:
    print("TYPER-IMPORTED:", "typer" in sys.modules, "END")
"""


def test_bare_amplifier_in_a_terminal_opens_the_chat_without_importing_typer(chat_project, fake_api) -> None:
    """The common way into the chat starts as `amplifier run` does: straight from the entry point."""
    fake_api.add(Turn(text="bare-answer"))
    child = spawn_in_terminal(sys.executable, ["-c", PROBE], cwd=str(chat_project), env=dict(os.environ),
                              encoding="utf-8", dimensions=(50, 140), timeout=20)
    try:
        child.expect_exact("· session ")
        assert "[chat-test]" in child.before  # the project's active profile, as the Typer root would pick
        child.expect_exact("❯ ")
        child.send("hello\r")
        child.expect_exact("bare-answer")
        child.expect_exact("❯ ")
        child.send("/exit\r")
        child.expect(r"TYPER-IMPORTED: (\w+) END")
        assert child.match.group(1) == "False"
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
