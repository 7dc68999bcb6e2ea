"""`amplifier init` and `amplifier tool invoke` in a real terminal (pexpect), the installed command against the
loopback fake API: setup ends in a working chat; a direct tool call is asked about and sandboxed like the
model's."""

from __future__ import annotations

import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest
from fakeapi import Turn
from testkit.terminal import spawn_in_terminal

from .conftest import installed_amplifier

_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]|[\r\x08]")
PROMPT = "❯ "


def _spawn(e2e: Any, *args: str, env: dict[str, str] | None = None) -> pexpect.spawn:
    command = installed_amplifier()
    environment = {**e2e.env, "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm-256color", **(env or {})}
    return spawn_in_terminal(command[0], [*command[1:], *args], cwd=str(e2e.project), env=environment,
                             encoding="utf-8", dimensions=(50, 160), timeout=60)


def _chat_answers(child: pexpect.spawn, answer: str) -> None:
    child.expect_exact(PROMPT)
    child.send("hello\r")
    child.expect_exact(answer)
    child.expect_exact(PROMPT)
    child.send("/exit\r")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_init_in_a_terminal_with_a_key_in_the_environment_ends_in_a_working_chat(e2e_api: Any) -> None:
    e2e_api.server.add(Turn(text="OK"))  # the test request
    e2e_api.server.add(Turn(text="CHAT-ANSWER after init"))
    child = _spawn(e2e_api, "init", env={"OPENAI_API_KEY": ""})
    child.expect_exact("ANTHROPIC_API_KEY (environment)")
    child.expect_exact("Provider [1]: ")
    child.send("\r")
    child.expect_exact("Model [")
    child.send("fake-model-small\r")
    child.expect_exact("Testing anthropic... ok")
    child.expect_exact("Start the chat now?")
    child.send("\r")
    _chat_answers(child, "CHAT-ANSWER after init")
    settings = (e2e_api.home / "config" / "settings.yaml").read_text(encoding="utf-8")
    assert "provider-anthropic" in settings and "fake-model-small" in settings
    assert "sk-" not in settings  # the key stays in the environment
    assert [request.model for request in e2e_api.server.requests] == ["fake-model-small"] * 2


def test_bare_amplifier_without_any_key_runs_setup_first_and_keeps_the_key_out_of_settings(e2e_api: Any) -> None:
    e2e_api.server.add(Turn(text="OK"))
    e2e_api.server.add(Turn(text="CHAT-ANSWER after setup"))
    child = _spawn(e2e_api, env={"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})
    child.expect_exact("No provider key found")
    child.expect_exact("Provider [1]: ")
    child.send("1\r")
    child.expect_exact("Model [")
    child.send("\r")
    child.expect_exact("ANTHROPIC_API_KEY (kept in your key store")
    child.send("sk-ant-typed-in-setup-0000\r")
    child.expect_exact("Testing anthropic... ok")
    child.expect_exact("Starting the chat")
    _chat_answers(child, "CHAT-ANSWER after setup")
    store = e2e_api.home / "config" / "keys.env"
    assert "sk-ant-typed-in-setup-0000" in store.read_text(encoding="utf-8")
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert "sk-ant-typed" not in (e2e_api.home / "config" / "settings.yaml").read_text(encoding="utf-8")
    headers = {name.lower(): value for name, value in e2e_api.server.requests[-1].headers.items()}
    sent = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
    assert sent == "sk-ant-typed-in-setup-0000"  # the chat used the stored key


def test_init_for_scripts_without_a_key_says_which_variable_to_set(e2e_api: Any) -> None:
    result = e2e_api.run("init", "--yes", env={"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": ""})
    assert result.returncode == 2
    assert "no provider key" in result.stderr and "ANTHROPIC_API_KEY" in result.stderr
    assert "Traceback" not in result.stderr


def test_provider_test_says_in_one_line_that_the_key_was_refused(e2e_api: Any) -> None:
    from fakeapi import Fault

    e2e_api.server.add(Fault.status(401, message="invalid x-api-key"), repeat=True)
    result = e2e_api.run("provider", "test", "anthropic")
    assert result.returncode == 1
    assert result.stderr.startswith("failed (auth): anthropic:"), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside the project and the temp dir: not a write root of the sandbox."""
    path = Path(tempfile.mkdtemp(prefix="amplifier-e2e-invoke-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_tool_invoke_bash_asks_like_the_models_call_and_runs_in_the_sandbox(e2e_api: Any, outside: Path) -> None:
    child = _spawn(e2e_api, "tool", "invoke", "bash", f"command=touch made.txt {outside}/escape.txt")
    child.expect_exact("Tool: bash")  # hooks-approval's question, as the model's call gets it
    child.expect_exact("Choice")
    child.send("Allow once\r")
    child.expect(pexpect.EOF)
    child.close()
    assert (e2e_api.project / "made.txt").exists()
    assert not (outside / "escape.txt").exists()  # the sandbox kept the write inside the project
    output = _ESCAPES.sub("", child.before)
    assert "escape.txt" in output and child.exitstatus == 1, output

    child = _spawn(e2e_api, "tool", "invoke", "bash", "command=touch denied.txt")
    child.expect_exact("Choice")
    child.send("Deny\r")
    child.expect(pexpect.EOF)
    child.close()
    assert not (e2e_api.project / "denied.txt").exists()
    assert child.exitstatus == 1


def test_tool_invoke_read_file_prints_the_file(e2e_api: Any) -> None:
    (e2e_api.project / "README.md").write_text("first line of the readme\n", encoding="utf-8")
    result = e2e_api.run("tool", "invoke", "read_file", "file_path=README.md")
    assert result.returncode == 0, result.stderr
    assert "first line of the readme" in result.stdout
    assert "read_file" not in result.stdout  # progress goes to stderr, the file to stdout
