"""How hook processes run and end: timeouts kill the whole process group, bad answers are warnings, the
environment holds no credentials, hooks run in the project directory."""

from __future__ import annotations

import asyncio
import errno
import json
import os
from pathlib import Path

import pytest
from amplifier_module_hook_shell import hook_process
from hook_lab import messages, one_hook
from testkit.processes import process_alive


async def pre(coordinator, command: str = "ls"):
    return await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {"command": command}})


def fifo_has_reader(fifo: Path) -> bool:
    """True while some process has the FIFO open (or is blocked opening it) for reading."""
    try:
        descriptor = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as error:
        assert error.errno == errno.ENXIO
        return False
    os.close(descriptor)
    return True


async def test_a_hook_that_times_out_is_killed_with_its_process_group_and_is_a_warning(lab, fifo) -> None:
    hang = lab.script("hang.sh", f'echo $$ > "$AMPLIFIER_PROJECT_DIR/leader.pid"\ncat "{fifo}" &\nwait')
    lab.write_hooks({"PreToolUse": one_hook(hang, timeout=0.5)})
    coordinator = await lab.mount()
    result = await pre(coordinator)
    assert result.action == "continue"  # a timeout never blocks
    (warning,) = messages(coordinator)
    assert "timed out after 0.5s and was stopped" in warning and "hang.sh" in warning
    assert not fifo_has_reader(fifo)  # the background `cat` of the hook's group is gone too
    assert not process_alive(int((lab.project / "leader.pid").read_text()))


async def test_a_process_a_hook_leaves_behind_on_its_output_is_ended_and_the_hook_still_counts(lab, fifo) -> None:
    leaves = lab.script("leaves.sh", f'cat "{fifo}" &\necho \'{{"decision": "deny", "reason": "no"}}\'')
    lab.write_hooks({"PreToolUse": one_hook(leaves)})
    coordinator = await lab.mount()
    assert (await pre(coordinator)).action == "deny"
    assert messages(coordinator) == []
    assert not fifo_has_reader(fifo)


async def test_a_hook_ignoring_sigterm_is_killed(lab, fifo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hook_process, "KILL_GRACE_SECONDS", 0.2)
    stubborn = lab.script("stubborn.sh", f"trap '' TERM\ncat \"{fifo}\"")
    lab.write_hooks({"PreToolUse": one_hook(stubborn, timeout=0.3)})
    coordinator = await lab.mount()
    await pre(coordinator)
    assert "timed out" in messages(coordinator)[0]
    assert not fifo_has_reader(fifo)


async def test_cancelling_a_running_hook_kills_it(lab, fifo) -> None:
    """The hook registry isolates a cancelled handler (the emit returns "continue"); the hook must be gone."""
    started = lab.project / "started"
    os.mkfifo(started)
    hang = lab.script("hang.sh", f'echo up > "{started}"\ncat "{fifo}"')
    lab.write_hooks({"PreToolUse": one_hook(hang, timeout=600)})
    coordinator = await lab.mount()
    call = asyncio.ensure_future(pre(coordinator))
    await asyncio.to_thread(started.read_text)  # returns once the hook has written: it is running
    assert fifo_has_reader(fifo) or not call.done()
    call.cancel()
    assert (await call).action == "continue"
    assert not fifo_has_reader(fifo)


async def test_invalid_json_on_stdout_is_a_warning_and_the_call_goes_on(lab) -> None:
    lab.write_hooks({"PreToolUse": one_hook(lab.script("broken.sh", "echo '{\"decision\": deny}'"))})
    coordinator = await lab.mount()
    result = await pre(coordinator)
    assert result.action == "continue"
    (warning,) = messages(coordinator)
    assert "printed invalid JSON" in warning and "its output was ignored" in warning


@pytest.mark.parametrize(("output", "expected"), [
    ("'[1, 2]'", "JSON that is not an object"),
    ("'{\"decision\": \"maybe\"}'", "unknown decision 'maybe'"),
])
async def test_json_of_the_wrong_shape_is_a_warning(lab, output: str, expected: str) -> None:
    lab.write_hooks({"PreToolUse": one_hook(lab.script("odd.sh", f"echo {output}"))})
    coordinator = await lab.mount()
    assert (await pre(coordinator)).action == "continue"
    assert expected in messages(coordinator)[0]


async def test_an_exit_code_other_than_0_and_2_is_a_warning_with_stderr(lab) -> None:
    lab.write_hooks({"PreToolUse": one_hook(lab.script("fails.sh", "echo 'linter not installed' >&2; exit 1"))})
    coordinator = await lab.mount()
    assert (await pre(coordinator)).action == "continue"
    (warning,) = messages(coordinator)
    assert "failed with exit code 1: linter not installed" in warning
    assert coordinator.display_system.messages[0]["level"] == "warning"


async def test_plain_text_stdout_of_a_tool_hook_is_not_context(lab) -> None:
    lab.write_hooks({"PreToolUse": one_hook(lab.script("chatty.sh", "echo checking..."))})
    coordinator = await lab.mount()
    assert (await pre(coordinator)).action == "continue"
    assert messages(coordinator) == []


async def test_hooks_run_in_the_project_dir_and_never_see_credentials_unless_passed(
        lab, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    monkeypatch.setenv("DB_PASSWORD", "hunter2")
    monkeypatch.setenv("HOOK_TEST_PLAIN", "visible")
    dump = lab.script("env.sh", 'pwd > "$AMPLIFIER_PROJECT_DIR/pwd.txt"; env > "$AMPLIFIER_PROJECT_DIR/env.txt"')
    lab.write_hooks({"PreToolUse": one_hook(dump)})
    await pre(await lab.mount({"pass_env": ["GITHUB_*"]}))
    assert (lab.project / "pwd.txt").read_text().strip() == str(lab.project)
    env = dict(line.split("=", 1) for line in (lab.project / "env.txt").read_text().splitlines() if "=" in line)
    assert "ANTHROPIC_API_KEY" not in env and "DB_PASSWORD" not in env
    assert env["GITHUB_TOKEN"] == "ghp-secret" and env["HOOK_TEST_PLAIN"] == "visible"
    assert env["AMPLIFIER_PROJECT_DIR"] == env["CLAUDE_PROJECT_DIR"] == str(lab.project)
    assert env["AMPLIFIER_HOOKS_DIR"] == str(lab.hooks_dir)
    assert env["AMPLIFIER_SESSION_ID"] == "test-session" and env["AMPLIFIER_HOOK_EVENT"] == "PreToolUse"
    assert "sk-ant-secret" not in (lab.project / "env.txt").read_text()


async def test_a_hook_that_never_reads_a_large_event_still_runs_and_its_big_output_is_capped(
        lab, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hook_process, "MAX_CAPTURE_BYTES", 1000)
    loud = lab.script("loud.sh", "head -c 300000 /dev/zero | tr '\\0' x >&2; exit 2")
    lab.write_hooks({"PreToolUse": one_hook(loud)})
    result = await pre(await lab.mount(), command="y" * 500_000)  # more than a pipe holds: never read
    assert result.action == "deny" and set(result.reason) == {"x"} and len(result.reason) <= 2000


async def test_an_event_holding_a_name_that_is_not_utf8_reaches_the_hook_as_json_escapes(lab) -> None:
    dump = lab.script("stdin.sh", 'cat > "$AMPLIFIER_PROJECT_DIR/stdin.json"')
    lab.write_hooks({"PreToolUse": one_hook(dump)})
    coordinator = await lab.mount()
    odd = os.fsdecode(b"caf\xe9-\xff.txt")
    await coordinator.hooks.emit("tool:pre", {"tool_name": "write_file", "tool_input": {"file_path": odd}})
    received = (lab.project / "stdin.json").read_bytes()
    assert received.isascii() and json.loads(received)["tool_input"]["file_path"] == odd
    assert messages(coordinator) == []
