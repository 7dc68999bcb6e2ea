"""The shadow repository: it lives under the data dir, leaves the project's own git repository alone,
honours .gitignore, restores files, and turns itself off with a clear message for a project too large."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from amplifier_cli.sessions import checkpoints
from amplifier_cli.sessions.checkpoints import CHECKPOINTS_FILE, Checkpointer, ShadowRepo, read_checkpoints


def _git(project: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=project, capture_output=True, text=True, check=True).stdout


def test_snapshots_restore_files_honour_gitignore_and_never_touch_the_projects_git(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "-q")
    (project / ".gitignore").write_text("*.log\n")
    (project / "kept.txt").write_text("one\n")
    (project / "noise.log").write_text("log\n")
    repo = ShadowRepo(tmp_path / "data", project)
    repo.ensure()
    before = repo.snapshot("before")
    (project / "kept.txt").write_text("two\n")
    (project / "new.txt").write_text("new\n")
    (project / "noise.log").write_text("more log\n")
    after = repo.snapshot("after")
    assert sorted(repo.changed(before, after)) == [("A", "new.txt"), ("M", "kept.txt")]  # *.log ignored
    repo.restore(before, repo.changed(before, after))
    assert (project / "kept.txt").read_text() == "one\n" and not (project / "new.txt").exists()
    assert (project / "noise.log").read_text() == "more log\n"
    assert _git(project, "status", "--porcelain").splitlines() == ["?? .gitignore", "?? kept.txt"]
    assert subprocess.run(["git", "rev-parse", "HEAD"], cwd=project, capture_output=True).returncode != 0
    assert repo.git_dir.is_relative_to(tmp_path / "data")


def test_names_and_contents_that_are_not_utf8_are_snapshotted_restored_and_shown(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    latin = os.fsdecode(b"caf\xe9.txt")  # a Latin-1 file name, as an old archive leaves it
    (project / latin).write_bytes(b"men\xfa\n")
    repo = ShadowRepo(tmp_path / "data", project)
    repo.ensure()
    repo.check_size()
    before = repo.snapshot("before")
    (project / latin).write_bytes(b"carta\n")
    after = repo.snapshot("after")
    assert repo.changed(before, after) == [("M", latin)]
    shown = repo.diff_text(before, after)
    assert "caf\\351.txt" in shown and "-men\ufffd" in shown and "+carta" in shown  # git quotes the name
    shown.encode("utf-8")  # printable as it is
    repo.restore(before, repo.changed(before, after))
    assert (project / latin).read_bytes() == b"men\xfa\n"


async def test_a_project_too_large_turns_checkpoints_off_with_a_message(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for index in range(5):
        (project / f"f{index}.txt").write_text("x")
    monkeypatch.setattr(checkpoints, "MAX_FILES", 3)
    record = SimpleNamespace(directory=tmp_path, metadata=SimpleNamespace(turn_count=0))
    checkpointer = Checkpointer(ShadowRepo(tmp_path / "data", project), record)
    warnings: list[str] = []
    checkpointer.warn = warnings.append
    await checkpointer.on_tool("tool:pre", {"tool_name": "write_file"})
    await checkpointer.on_tool("tool:pre", {"tool_name": "bash"})
    assert len(warnings) == 1 and "5 files" in warnings[0] and "limit of 3" in warnings[0]
    assert "AMPLIFIER_CHECKPOINT_MAX_FILES" in warnings[0]
    assert not (tmp_path / CHECKPOINTS_FILE).exists()


def test_the_limits_are_read_from_the_environment_when_checked_and_a_bad_one_is_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "big.bin").write_bytes(b"x" * 2048)
    repo = ShadowRepo(tmp_path / "data", project)
    repo.ensure()
    repo.check_size()
    monkeypatch.setenv("AMPLIFIER_CHECKPOINT_MAX_BYTES", "1000")
    with pytest.raises(checkpoints.CheckpointError, match="hold 2048 bytes, more than the checkpoint limit of 1000"):
        repo.check_size()
    monkeypatch.setenv("AMPLIFIER_CHECKPOINT_MAX_FILES", "lots")
    with pytest.raises(checkpoints.CheckpointError, match="AMPLIFIER_CHECKPOINT_MAX_FILES='lots' is not a whole"):
        repo.check_size()


async def test_read_only_tools_take_no_snapshot_and_others_record_their_turn(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("a")
    record = SimpleNamespace(directory=tmp_path, metadata=SimpleNamespace(turn_count=2))
    checkpointer = Checkpointer(ShadowRepo(tmp_path / "data", project), record)
    await checkpointer.on_tool("tool:pre", {"tool_name": "read_file"})
    assert read_checkpoints(tmp_path) == []
    await checkpointer.on_tool("tool:pre", {"tool_name": "edit_file"})
    await checkpointer.on_tool("tool:post", {"tool_name": "edit_file"})
    entries = read_checkpoints(tmp_path)
    assert [(entry["turn"], entry["when"], entry["tool"]) for entry in entries] == [(3, "pre", "edit_file"),
                                                                                    (3, "post", "edit_file")]


async def test_sessions_side_by_side_stage_in_their_own_index_so_one_mid_snapshot_blocks_no_other(
        tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("a")
    sessions = [tmp_path / "one", tmp_path / "two"]
    for directory in sessions:
        directory.mkdir()
    repos = [ShadowRepo(tmp_path / "data", project, directory / checkpoints.INDEX_FILE) for directory in sessions]
    repos[0].snapshot("first")
    busy = Path(f"{repos[0].index}.lock")  # session one is staging right now (git holds this while it adds)
    busy.write_text("")
    (tmp_path / "data" / "checkpoints").joinpath(repos[0].git_dir.name, "index.lock").write_text("")  # and the
    # shared index of a session started before this version
    record = SimpleNamespace(directory=sessions[1], metadata=SimpleNamespace(turn_count=0))
    checkpointer = Checkpointer(repos[1], record)
    warnings: list[str] = []
    checkpointer.warn = warnings.append
    await checkpointer.on_tool("tool:pre", {"tool_name": "write_file"})
    (project / "a.txt").write_text("b")
    await checkpointer.on_tool("tool:post", {"tool_name": "write_file"})
    assert warnings == [] and checkpointer.disabled is None
    before, after = (entry["commit"] for entry in read_checkpoints(sessions[1]))
    assert repos[1].changed(before, after) == [("M", "a.txt")]
    busy.unlink()
    assert repos[0].snapshot("again")  # the other session goes on with its own index


@pytest.mark.parametrize(("failure", "kept"), [
    ("git add failed: fatal: unable to stat '.f3.txt.2c83.tmp': No such file or directory", True),
    ("git add failed: fatal: index file corrupt", False),
], ids=["a-file-vanished", "a-real-failure"])
def test_a_file_another_session_replaced_mid_snapshot_is_staged_again_not_a_failure(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str, kept: bool) -> None:
    """Sessions side by side write files through a temporary name; `git add` may list one and find it gone: the
    snapshot stages again (the tree as it is now) instead of turning checkpoints off. Other failures still fail."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "f.txt").write_text("x\n")
    repo = ShadowRepo(tmp_path / "data", project)
    real_git = repo.git
    adds: list[int] = []

    def racing_git(*args: str, check: bool = True) -> str:
        if args[0] == "add" and not adds:
            adds.append(1)
            raise checkpoints.CheckpointError(failure)
        return real_git(*args, check=check)

    monkeypatch.setattr(repo, "git", racing_git)
    if kept:
        assert repo.snapshot("after the race")
    else:
        with pytest.raises(checkpoints.CheckpointError, match="index file corrupt"):
            repo.snapshot("broken")
