"""Driving the installed `amplifier` in a pseudo-terminal against the in-process fake API server."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest
from testkit.terminal import spawn_in_terminal
from warmstart import amplifier_command

PROMPT = "❯ "
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|[\r\x08]")

PROFILE = """\
profile:
  name: chat-test
  description: REPL tests against the fake Anthropic server
session:
  orchestrator: {module: loop-streaming}
  context: {module: context-simple}
providers:
  - module: provider-anthropic
    config: {default_model: claude-test, max_retries: 0}
tools:
  - module: tool-bash
hooks:
  - module: hooks-streaming-ui
  - module: hooks-approval
    config:
      rules: [{tool: bash, command: "sleep *"}, {tool: bash, command: "echo go > *.fifo"}]
instruction: You are the REPL test assistant.
"""


def amplifier_binary() -> str:
    """The installed `amplifier`, started warm (tests/support/warmstart)."""
    return amplifier_command()[0]


def wait_until_read(fifo: Path) -> None:
    """Block until a tool's shell command writes to ``fifo`` (proof that it is running), 30 s at most."""
    reader = threading.Thread(target=fifo.read_text, daemon=True)
    reader.start()
    reader.join(timeout=30)
    assert not reader.is_alive(), f"nothing was written to {fifo.name}: the command never started"


class Chat:
    """One `amplifier` process in a pty; `expect` waits on output (never on time)."""

    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child

    def expect(self, pattern: str, timeout: float = 20) -> str:
        """Wait for the literal ``pattern``; returns what was printed before it, terminal escapes removed."""
        self.child.expect_exact(pattern, timeout=timeout)
        return _ESCAPES.sub("", self.child.before)

    def prompt(self) -> str:
        return self.expect(PROMPT)

    def send_line(self, text: str) -> None:
        self.child.send(text + "\r")

    def exchange(self, text: str, answer: str) -> None:
        """Send ``text``, wait for ``answer`` to be printed, then for the next prompt: one whole turn or command."""
        self.send_line(text)
        self.expect(answer)
        self.prompt()

    def ready(self) -> None:
        """Wait until the session is open and the prompt is shown."""
        self.expect("· session ")
        self.prompt()

    def exit(self) -> int:
        self.send_line("/exit")
        self.child.expect(pexpect.EOF, timeout=20)
        self.child.close()
        return self.child.exitstatus


@pytest.fixture
def chat_project(project_dir: Path, fake_api, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose active profile talks to the fake server through provider-anthropic."""
    (project_dir / ".amplifier" / "profiles").mkdir()
    (project_dir / ".amplifier" / "profiles" / "chat-test.yaml").write_text(PROFILE, encoding="utf-8")
    (project_dir / ".amplifier" / "settings.yaml").write_text("profile:\n  active: chat-test\n", encoding="utf-8")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-dummy-key")
    monkeypatch.setenv("PROMPT_TOOLKIT_NO_CPR", "1")
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    from testkit.trust import trust_project_now

    trust_project_now(project_dir)  # the user's own test project: its profile and settings apply
    return project_dir


@pytest.fixture
def spawn_chat(chat_project: Path) -> Iterator:
    children: list[pexpect.spawn] = []

    def spawn(*args: str) -> Chat:
        child = spawn_in_terminal(amplifier_binary(), list(args), cwd=str(chat_project), env=dict(os.environ),
                                  encoding="utf-8", dimensions=(50, 140), timeout=20)
        children.append(child)
        return Chat(child)

    yield spawn
    for child in children:
        if child.isalive():
            child.terminate(force=True)
