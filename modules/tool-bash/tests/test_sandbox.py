"""tool-bash under the OS sandbox, with real processes: write roots, no_new_privs, network, modes, the
"no Landlock" path, required, the user's one-shot run outside the sandbox, and how a refusal reads."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from amplifier_module_tool_bash import BashConfig, mount

from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.events import TOOL_PRE
from amplifier_core.module_config import ModuleConfigError, parse_module_config
from amplifier_support.sandbox import FORCE_NO_NAMESPACE_ENV, FORCE_UNAVAILABLE_ENV


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside every write root (not under the project, not under the temp dir)."""
    path = Path(tempfile.mkdtemp(prefix="amplifier-bash-sandbox-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


async def _mounted(workdir: Path, config: dict | None = None) -> tuple[ModuleCoordinator, object, object]:
    coordinator = ModuleCoordinator(session=None)
    coordinator.register_capability("session.working_dir", str(workdir))
    cleanup = await mount(coordinator, {"kill_grace_seconds": 0.2, **(config or {})})
    return coordinator, coordinator.get("tools", "bash"), cleanup


async def test_writes_inside_the_project_succeed_and_outside_are_refused_plainly(workdir: Path,
                                                                                 outside: Path) -> None:
    _, bash, cleanup = await _mounted(workdir)
    try:
        inside = await bash.execute({"command": "echo hi > note.txt && cat note.txt"})
        assert inside.success and (workdir / "note.txt").read_text() == "hi\n"

        refused = await bash.execute({"command": f"echo x > {outside}/escape.txt"})
        assert not refused.success
        assert not (outside / "escape.txt").exists()
        message = refused.error["message"]
        assert "Blocked by the sandbox" in message and f"{outside}/escape.txt" in message
        assert "workspace-write" in message and str(workdir) in message
        assert refused.error["sandbox"]["mode"] == "workspace-write"
        assert "Blocked by the sandbox" in refused.output  # the model reads the output too
    finally:
        await cleanup()


async def test_the_command_runs_with_no_new_privs(workdir: Path) -> None:
    _, bash, cleanup = await _mounted(workdir)
    try:
        result = await bash.execute({"command": "grep NoNewPrivs /proc/self/status"})
        assert result.output.split() == ["NoNewPrivs:", "1"]
    finally:
        await cleanup()


@pytest.fixture
def listener() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield server.getsockname()[1]
    server.close()


async def test_network_false_refuses_a_loopback_connection(workdir: Path, listener: int) -> None:
    connect = (f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {listener}), 5); "
               "print(\"connected\")'")
    _, bash, cleanup = await _mounted(workdir, {"sandbox": {"network": False}})
    try:
        refused = await bash.execute({"command": connect})
        assert not refused.success and "connected" not in refused.output
        assert "network" in refused.error["message"]
    finally:
        await cleanup()
    _, bash, cleanup = await _mounted(workdir)  # by default: no network but through the proxy (test_network.py)
    try:
        direct = await bash.execute({"command": connect})
        assert not direct.success and "connected" not in direct.output
    finally:
        await cleanup()
    _, bash, cleanup = await _mounted(workdir, {"sandbox": {"network": True}})
    try:
        allowed = await bash.execute({"command": connect})
        assert allowed.success and "connected" in allowed.output
    finally:
        await cleanup()


async def test_read_only_refuses_writes_in_the_project(outside: Path) -> None:
    _, bash, cleanup = await _mounted(outside, {"sandbox": "read-only"})
    try:
        refused = await bash.execute({"command": "touch made.txt"})
        assert not refused.success and not (outside / "made.txt").exists()
        assert "read-only" in refused.error["message"]
    finally:
        await cleanup()


async def test_off_runs_unconfined_and_status_warns(workdir: Path, outside: Path) -> None:
    coordinator, bash, cleanup = await _mounted(workdir, {"sandbox": {"mode": "off"}})
    try:
        result = await bash.execute({"command": f"touch {outside}/x"})
        assert result.success and (outside / "x").exists()
        status = coordinator.get_capability("sandbox.status")()
        assert status["mode"] == "off" and not status["confined"]
        assert "sandbox off" in status["warning"]
    finally:
        await cleanup()


async def test_without_landlock_commands_run_with_a_warning(workdir: Path, outside: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FORCE_UNAVAILABLE_ENV, "1")
    coordinator, bash, cleanup = await _mounted(workdir)
    try:
        result = await bash.execute({"command": f"touch {outside}/x"})
        assert result.success and (outside / "x").exists()
        status = coordinator.get_capability("sandbox.status")()
        assert not status["confined"] and "not fully enforced" in status["warning"]
        assert "NOT enforced" in status["summary"]
    finally:
        await cleanup()


async def test_required_without_landlock_refuses_to_run(workdir: Path, outside: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FORCE_UNAVAILABLE_ENV, "1")
    _, bash, cleanup = await _mounted(workdir, {"sandbox": {"required": True}})
    try:
        result = await bash.execute({"command": f"touch {outside}/x"})
        assert not result.success and not (outside / "x").exists()
        assert "sandbox is required" in result.error["message"]
        background = await bash.execute({"command": f"touch {outside}/y", "run_in_background": True})
        assert not background.success and not (outside / "y").exists()
    finally:
        await cleanup()


async def test_a_user_grant_runs_that_command_once_outside_the_sandbox(workdir: Path, outside: Path) -> None:
    coordinator, bash, cleanup = await _mounted(workdir)
    command = f"touch {outside}/granted; grep NoNewPrivs /proc/self/status"
    try:
        assert coordinator.get_capability("sandbox.run_unconfined_once")(command) is True
        once = await bash.execute({"command": command})
        assert once.success and (outside / "granted").exists()
        assert "outside the sandbox" in once.output and "NoNewPrivs:\t0" in once.output

        (outside / "granted").unlink()
        again = await bash.execute({"command": command})  # the grant was for one run
        assert not (outside / "granted").exists()
        assert "NoNewPrivs:\t1" in again.output and "Blocked by the sandbox" in again.output

        coordinator.get_capability("sandbox.run_unconfined_once")(command)
        await coordinator.hooks.emit(TOOL_PRE, {"tool_name": "bash", "tool_input": {"command": "ls"}})
        stale = await bash.execute({"command": command})  # a grant does not outlive the next bash call
        assert not (outside / "granted").exists() and "NoNewPrivs:\t1" in stale.output
    finally:
        await cleanup()


async def test_background_commands_are_confined_too(workdir: Path, outside: Path) -> None:
    _, bash, cleanup = await _mounted(workdir)
    try:
        started = await bash.execute({"command": f"touch {outside}/bg; echo done", "run_in_background": True})
        assert started.success
        await asyncio.to_thread(bash.jobs["bg1"].process.wait, 10)
        read = await bash.read_job("bg1")
        assert "Permission denied" in read.output and not (outside / "bg").exists()
    finally:
        await cleanup()


def test_sandbox_config_shapes() -> None:
    assert parse_module_config(BashConfig, {"sandbox": "off"}, "tool-bash").sandbox.mode == "off"
    assert parse_module_config(BashConfig, {"sandbox": False}, "tool-bash").sandbox.mode == "off"  # YAML `off`
    assert parse_module_config(BashConfig, {"sandbox": {"mode": False}}, "tool-bash").sandbox.mode == "off"
    parsed = parse_module_config(BashConfig, {"sandbox": {"write_roots": ["~/.cache"], "network": False}},
                                 "tool-bash")
    assert parsed.sandbox.write_roots == ["~/.cache"] and parsed.sandbox.network is False
    with pytest.raises(ModuleConfigError, match="sandbox"):
        parse_module_config(BashConfig, {"sandbox": "sometimes"}, "tool-bash")
    with pytest.raises(ModuleConfigError, match="sandbox"):
        parse_module_config(BashConfig, {"sandbox": {"mode": "off", "netwrk": True}}, "tool-bash")


async def _mounted_in_home(workdir: Path, outside: Path) -> tuple[ModuleCoordinator, Path, object]:
    """Run from the home directory: the workspace holds amplifier's settings (approval rules)."""
    coordinator = ModuleCoordinator(session=None)
    coordinator.register_capability("session.working_dir", str(workdir))
    config_dir = workdir / ".config" / "amplifier"
    config_dir.mkdir(parents=True)
    coordinator.register_capability("app.user_config_dir", str(config_dir))
    coordinator.register_capability("session.dir", str(outside / "sessions" / "s1"))
    return coordinator, config_dir, await mount(coordinator, {})


async def test_amplifiers_own_settings_inside_a_write_root_are_read_only_for_commands(
        workdir: Path, outside: Path) -> None:
    coordinator, config_dir, cleanup = await _mounted_in_home(workdir, outside)
    try:
        bash = coordinator.get("tools", "bash")
        refused = await bash.execute({"command": "echo 'approval: {rules: []}' > .config/amplifier/settings.yaml"})
        assert not refused.success and not (config_dir / "settings.yaml").exists()
        assert "amplifier's settings (approval rules, sandbox mode) is read-only for commands" in \
            refused.error["message"]
        assert coordinator.get_capability("sandbox.status")()["warning"] is None
        assert (await bash.execute({"command": "echo ok > .config/other.txt"})).success
    finally:
        await cleanup()


async def test_without_a_namespace_a_warning_says_amplifiers_own_settings_are_writable(
        workdir: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Landlock alone cannot carve them out of the workspace, so the user is told."""
    monkeypatch.setenv(FORCE_NO_NAMESPACE_ENV, "1")
    coordinator, config_dir, cleanup = await _mounted_in_home(workdir, outside)
    try:
        bash = coordinator.get("tools", "bash")
        wrote = await bash.execute({"command": "echo 'approval: {rules: []}' > .config/amplifier/settings.yaml"})
        assert wrote.success  # the risk is real: inside the workspace, the sandbox lets it write
        warning = coordinator.get_capability("sandbox.status")()["warning"]
        assert f"can write {config_dir}" in warning and "approval rules" in warning
        assert "session records" not in warning
    finally:
        await cleanup()

    coordinator = ModuleCoordinator(session=None)
    coordinator.register_capability("session.working_dir", str(workdir))
    coordinator.register_capability("app.user_config_dir", str(outside / "config"))
    cleanup = await mount(coordinator, {})
    try:
        assert "can write" not in (coordinator.get_capability("sandbox.status")()["warning"] or "")
    finally:
        await cleanup()


async def test_a_command_inherits_no_descriptor_amplifier_holds_open(workdir: Path, outside: Path) -> None:
    """Landlock checks a path when it is opened: a writable descriptor amplifier holds (events.jsonl, say), if a
    command inherited it, would be a write outside the roots. Foreground and background commands get none."""
    target = outside / "held.log"
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.set_inheritable(descriptor, True)
    _, bash, cleanup = await _mounted(workdir)
    try:
        attempt = f"echo escaped >&{descriptor}; echo escaped > /proc/self/fd/{descriptor}; ls /proc/self/fd"
        foreground = await bash.execute({"command": attempt})
        assert "Bad file descriptor" in foreground.output or "No such file" in foreground.output
        assert sorted(int(fd) for fd in foreground.output.split() if fd.isdigit()) == [0, 1, 2, 3]  # 3: ls's dir
        started = await bash.execute({"command": f"{attempt}; echo done", "run_in_background": True})
        assert started.success
        await asyncio.to_thread(bash.jobs["bg1"].process.wait, 10)
        finished = await bash.read_job("bg1")
        assert finished.output.rstrip().endswith("done") and "Bad file descriptor" in finished.output
    finally:
        await cleanup()
        os.close(descriptor)
    assert target.read_text() == ""
