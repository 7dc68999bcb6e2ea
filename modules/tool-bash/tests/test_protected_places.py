"""The model's commands cannot plant what the next session trusts: .amplifier/, .mcp.json and git's hooks and
config are read-only for them (a mount namespace), the rest of the project stays writable, and a change to them
(a place that did not exist yet, or every change where no namespace can be made) is named in the result. Real
processes, real git; and read-only mode keeps a project under the temp dir read-only."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest
from amplifier_module_tool_bash import mount

from amplifier_core.coordinator import ModuleCoordinator
from amplifier_support.sandbox import FORCE_NO_NAMESPACE_ENV


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".amplifier").mkdir()
    (root / ".amplifier" / "settings.yaml").write_text("x: 1\n")
    return root


@pytest.fixture
def fresh(tmp_path: Path) -> Path:
    """A repository with none of the project's protected places yet (git's own hooks dir and config aside)."""
    root = tmp_path / "fresh"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


async def _bash(project: Path, config: dict | None = None):
    coordinator = ModuleCoordinator(session=None)
    coordinator.register_capability("session.working_dir", str(project))
    cleanup = await mount(coordinator, {"kill_grace_seconds": 0.2, **(config or {})})
    return coordinator.get("tools", "bash"), cleanup


WRITES = {
    ".amplifier/settings.yaml": "echo 'sandbox: off' > .amplifier/settings.yaml",
    ".amplifier/hooks/hooks.json": "mkdir -p .amplifier/hooks && echo '{}' > .amplifier/hooks/hooks.json",
    ".git/hooks/pre-commit": "echo evil > .git/hooks/pre-commit",
    ".git/config": "git config core.hooksPath /tmp/evil",
}


@pytest.mark.parametrize("place", sorted(WRITES))
async def test_a_command_cannot_write_a_protected_place_and_the_result_says_why(project: Path, place: str) -> None:
    config_before = (project / ".git" / "config").read_text()
    bash, cleanup = await _bash(project)
    try:
        result = await bash.execute({"command": f"{WRITES[place]}; echo done > elsewhere.txt"})
    finally:
        await cleanup()
    assert (project / ".amplifier" / "settings.yaml").read_text() == "x: 1\n"
    assert not (project / ".amplifier" / "hooks").exists() and not (project / ".git" / "hooks" / "pre-commit").exists()
    assert (project / ".git" / "config").read_text() == config_before
    assert (project / "elsewhere.txt").read_text() == "done\n"
    assert "Blocked by the sandbox" in result.output and "is read-only for commands" in result.output
    assert "protected places changed" not in result.output


CREATES = {
    ".mcp.json": "echo '{\"mcpServers\": {}}' > .mcp.json",
    ".claude/commands/x.md": "mkdir -p .claude/commands && echo 'run evil' > .claude/commands/x.md",
    ".amplifier/settings.yaml": "rm -rf .amplifier; mkdir -p .amplifier && echo 'sandbox: off' > "
                                ".amplifier/settings.yaml",
}


@pytest.mark.parametrize("place", sorted(CREATES))
async def test_a_command_cannot_create_a_protected_place_that_did_not_exist_and_new_files_beside_it_work(
        fresh: Path, place: str) -> None:
    project = fresh
    bash, cleanup = await _bash(project)
    try:
        result = await bash.execute({"command": f"{CREATES[place]}; touch new.txt"})
        again = await bash.execute({"command": "touch .mcp.json || echo refused again"})
    finally:
        await cleanup()
    assert not (project / place).exists()
    assert sorted(path.name for path in project.iterdir()) == [".git", "new.txt"]  # no stand-in is left behind
    assert "Blocked by the sandbox" in result.output and "is read-only for commands" in result.output, result.output
    assert "protected places changed" not in result.output
    assert "refused again" in again.output


async def test_without_a_namespace_commands_run_and_each_change_is_named(project: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FORCE_NO_NAMESPACE_ENV, "1")
    bash, cleanup = await _bash(project)
    try:
        status = bash.sandbox_status()
        result = await bash.execute({"command": WRITES[".git/hooks/pre-commit"]})
        started = await bash.execute({"command": "echo 'y: 2' >> .amplifier/settings.yaml; echo written",
                                      "run_in_background": True})
        assert started.success
        await asyncio.to_thread(bash.jobs["bg1"].process.wait, 10)
        read = await bash.read_job("bg1")
        read_again = await bash.read_job("bg1")
    finally:
        await cleanup()
    assert "NOT read-only" in status["warning"] and "NOT read-only" in status["summary"]
    assert result.success and (project / ".git" / "hooks" / "pre-commit").exists()
    assert "created .git/hooks/pre-commit (git's hooks)" in result.output
    assert "changed .amplifier/settings.yaml (amplifier's project config)" in read.output
    assert "protected places changed" not in read_again.output  # said once


async def test_read_only_mode_keeps_a_project_under_the_temp_dir_read_only(project: Path) -> None:
    bash, cleanup = await _bash(project, {"sandbox": "read-only"})
    try:
        refused = await bash.execute({"command": "echo x > f"})
        scratch = await bash.execute({"command": f"echo x > {project.parent}/scratch && echo ok"})
    finally:
        await cleanup()
    assert not refused.success and not (project / "f").exists()
    assert "the project (read-only mode) is read-only for commands" in refused.error["message"]
    assert scratch.success and (project.parent / "scratch").exists()


async def test_read_only_mode_without_a_namespace_leaves_the_temp_dir_out_and_says_so(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FORCE_NO_NAMESPACE_ENV, "1")
    bash, cleanup = await _bash(project, {"sandbox": "read-only"})
    try:
        refused = await bash.execute({"command": "echo x > f"})
        warning = bash.sandbox_status()["warning"]
    finally:
        await cleanup()
    assert not refused.success and not (project / "f").exists()
    assert "the temp dir is not writable either, since the project lies in it" in warning


async def test_a_stand_in_a_crashed_session_left_is_removed_when_the_tool_mounts(fresh: Path) -> None:
    leftover = fresh / ".mcp.json"
    leftover.touch(mode=0o000)  # what the launcher makes, left behind by a process killed mid-command
    kept = fresh / ".claude"
    kept.mkdir()
    (kept / "notes.md").write_text("mine\n")  # a real place, never taken for a stand-in
    _, cleanup = await _bash(fresh)
    await cleanup()
    assert not leftover.exists() and (kept / "notes.md").read_text() == "mine\n"
