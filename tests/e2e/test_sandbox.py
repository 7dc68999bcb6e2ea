"""`amplifier run` with tool-bash under the OS sandbox, and a secret a tool prints and the model repeats:
real processes, the installed command, the fake API server."""

from __future__ import annotations

import shutil
import stat
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakeapi import ToolCall, Turn


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside the project and the temp dir: no write root."""
    path = Path(tempfile.mkdtemp(prefix="amplifier-e2e-sandbox-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _bash_profile(e2e_api, name: str = "shell", hooks: tuple[str, ...] = ("hooks-streaming-ui", "hooks-logging"),
                  **extra) -> None:
    e2e_api.profile(name, tools=("tool-bash",), hooks=hooks, **extra)


def _tool_result(server) -> str:
    return server.requests[1].last_tool_result_text


def test_commands_write_only_in_the_project_and_run_without_new_privileges(e2e_api, outside: Path) -> None:
    server = e2e_api.server
    command = f"touch inside.txt; touch {outside}/escape.txt; grep NoNewPrivs /proc/self/status"
    server.add(Turn(tool_calls=[ToolCall("bash", {"command": command})]))
    server.add(Turn(text="done"))
    _bash_profile(e2e_api)
    result = e2e_api.run("run", "-P", "shell", "touch things")
    assert result.returncode == 0, result.stderr
    assert (e2e_api.project / "inside.txt").exists() and not (outside / "escape.txt").exists()
    seen = _tool_result(server)
    assert "NoNewPrivs:\t1" in seen
    assert f"Blocked by the sandbox (Landlock): refused writing {outside}/escape.txt" in seen
    assert "sandbox not fully enforced" not in result.stderr and "sandbox off" not in result.stderr


def test_sandbox_off_runs_unconfined_with_a_warning_line(e2e_api, outside: Path) -> None:
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("bash", {"command": f"touch {outside}/escape.txt"})]))
    server.add(Turn(text="done"))
    _bash_profile(e2e_api)
    result = e2e_api.run("run", "-P", "shell", "--sandbox", "off", "touch it")
    assert result.returncode == 0, result.stderr
    assert (outside / "escape.txt").exists()
    assert result.stderr.count("sandbox off: shell commands run with your full permissions") == 1


def test_without_landlock_commands_run_with_a_warning_and_required_refuses(e2e_api, outside: Path) -> None:
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("bash", {"command": f"touch {outside}/a"})]))
    server.add(Turn(text="done"))
    _bash_profile(e2e_api)
    forced = {"AMPLIFIER_SANDBOX_FORCE_UNAVAILABLE": "1"}
    result = e2e_api.run("run", "-P", "shell", "touch a", env=forced)
    assert result.returncode == 0, result.stderr
    assert (outside / "a").exists()
    assert "sandbox not fully enforced" in result.stderr

    server.add(Turn(tool_calls=[ToolCall("bash", {"command": f"touch {outside}/b"})]))
    server.add(Turn(text="done"))
    e2e_api.profile("strict-shell", tools=("tool-bash",), hooks=("hooks-streaming-ui",))
    path = e2e_api.project / ".amplifier" / "profiles" / "strict-shell.yaml"
    path.write_text(path.read_text().replace("- module: tool-bash", "- module: tool-bash\n  config: {sandbox: "
                                                                      "{required: true}}"))
    refused = e2e_api.run("run", "-P", "strict-shell", "touch b", env=forced)
    assert refused.returncode == 0, refused.stderr
    assert not (outside / "b").exists()
    assert "sandbox required" in refused.stderr
    assert "the sandbox is required" in server.requests[-1].last_tool_result_text


def test_a_command_named_by_an_expansion_is_asked_for_and_not_run_headless(e2e_api) -> None:
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("bash", {"command": "s=sudo; $s -n true; touch ran.txt"})]))
    server.add(Turn(text="done"))
    _bash_profile(e2e_api, hooks=("hooks-streaming-ui", "hooks-approval"),  # an allow rule for every command
                  hook_config={"hooks-approval": {"rules": [{"tool": "bash", "command": "*"}]}})
    result = e2e_api.run("run", "-P", "shell", "do it")  # no terminal: nobody can answer
    assert result.returncode == 0, result.stderr
    assert not (e2e_api.project / "ran.txt").exists()
    # hooks-approval denies it itself: nobody can approve a line that cannot be judged (issue 20)
    assert "nobody can approve it in this run" in _tool_result(server)
    assert "the expansion $s in the command name" in _tool_result(server)


def test_invalid_sandbox_mode_is_a_usage_error(e2e_api) -> None:
    result = e2e_api.run("run", "--sandbox", "sometimes", "hi")
    assert result.returncode == 2
    assert "--sandbox must be one of workspace-write, read-only, off" in result.stderr


def test_a_secret_printed_by_a_tool_and_repeated_by_the_model_is_on_no_disk(e2e_api, outside: Path) -> None:
    secret = f"deploy-{uuid.uuid4().hex}"
    e2e_api.env["DEPLOY_TOKEN"] = secret  # the command does not get it (credential-like): it reads a key file
    (outside / "key").write_text(secret)
    server = e2e_api.server
    command = f"echo the token is $(cat {outside}/key)"
    server.add(Turn(tool_calls=[ToolCall("bash", {"command": command})]))
    server.add(Turn(text=f"The token is {secret}."))
    _bash_profile(e2e_api)  # no hooks-redaction: the store and the event log mask on their own
    result = e2e_api.run("run", "-P", "shell", "print the token")
    assert result.returncode == 0, result.stderr
    assert secret in _tool_result(server)  # the session itself saw it (masking is for what is persisted)

    session = e2e_api.only_session()
    server.add(Turn(text="ok"))
    resumed = e2e_api.run("run", "--resume", session.name, "and now?")
    assert resumed.returncode == 0, resumed.stderr
    assert "[REDACTED:DEPLOY_TOKEN]" in str(server.requests[-1].json)  # resumed from the masked copy

    assert "[REDACTED:DEPLOY_TOKEN]" in (session / "transcript.jsonl").read_text()
    assert "[REDACTED:DEPLOY_TOKEN]" in (session / "events.jsonl").read_text()
    files = [path for root in (e2e_api.home, e2e_api.project) for path in root.rglob("*") if path.is_file()]
    assert len(files) >= 4
    for path in files:
        assert secret.encode() not in path.read_bytes(), f"the secret was written to {path}"

    assert stat.S_IMODE(e2e_api.sessions_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(session.stat().st_mode) == 0o700
    for name in ("transcript.jsonl", "metadata.json", "events.jsonl", "mount_plan.json"):
        assert stat.S_IMODE((session / name).stat().st_mode) == 0o600, name


def test_a_secret_the_model_streams_in_pieces_is_on_no_disk_with_deltas_logged(e2e_api) -> None:
    import json

    secret = f"deploy-{uuid.uuid4().hex}"
    e2e_api.env["DEPLOY_TOKEN"] = secret
    answer = f"Here it is: {secret} (as asked)."
    e2e_api.server.add(Turn(text_chunks=[answer[index:index + 4] for index in range(0, len(answer), 4)]))
    _bash_profile(e2e_api, hook_config={"hooks-logging": {"include_deltas": True}})
    result = e2e_api.run("run", "-P", "shell", "repeat the token")
    assert result.returncode == 0, result.stderr

    events = [json.loads(line) for line in (e2e_api.only_session() / "events.jsonl").read_text().splitlines()]
    streamed = "".join(event["data"].get("delta", "") for event in events if event["event"] == "content_block:delta")
    assert streamed == "Here it is: [REDACTED:DEPLOY_TOKEN] (as asked)."
    for path in [path for root in (e2e_api.home, e2e_api.project) for path in root.rglob("*") if path.is_file()]:
        assert secret.encode() not in path.read_bytes(), f"the secret was written to {path}"


def test_commands_cannot_plant_project_config_and_read_only_holds_under_the_temp_dir(e2e_api) -> None:
    """The project lies under the temp dir (a write root): .amplifier/ stays read-only for the model's commands,
    the rest of the project is writable, and with --sandbox read-only nothing in the project is."""
    server = e2e_api.server
    plant = "echo 'sandbox: off' > .amplifier/settings.yaml; echo ok > made.txt"
    server.add(Turn(tool_calls=[ToolCall("bash", {"command": plant})]))
    server.add(Turn(text="done"))
    server.add(Turn(tool_calls=[ToolCall("bash", {"command": "echo x > f"})]))
    server.add(Turn(text="done"))
    _bash_profile(e2e_api)
    result = e2e_api.run("run", "-P", "shell", "plant it")
    assert result.returncode == 0, result.stderr
    assert not (e2e_api.project / ".amplifier" / "settings.yaml").exists()
    assert (e2e_api.project / "made.txt").read_text() == "ok\n"
    assert "amplifier's project config is read-only for commands" in _tool_result(server)

    read_only = e2e_api.run("run", "-P", "shell", "--sandbox", "read-only", "write f")
    assert read_only.returncode == 0, read_only.stderr
    assert not (e2e_api.project / "f").exists()
    assert "the project (read-only mode) is read-only for commands" in server.requests[-1].last_tool_result_text
