"""Paths are judged after resolving ~, .., relative paths and symlinks: none of them escape the allowed roots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from amplifier_module_tool_filesystem import FilesystemConfig, build_tools


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "outside.txt").write_text("secret\n")
    return work


def _tools(workdir: Path, **config) -> dict:
    class Coordinator:
        hooks = None

        def get_capability(self, name: str):
            return str(workdir) if name == "session.working_dir" else None

    return {tool.name: tool for tool in build_tools(FilesystemConfig(**config), Coordinator())}


@pytest.mark.parametrize(
    "path", ["../outside.txt", "sub/../../outside.txt", "{outside}", "~/notes.txt", "/etc/hostname"],
)
async def test_reads_outside_the_working_dir_are_denied(workdir: Path, path: str) -> None:
    (Path.home() / "notes.txt").write_text("home\n")
    path = path.format(outside=workdir.parent / "outside.txt")
    result = await _tools(workdir)["read_file"].execute({"file_path": path})
    assert not result.success
    assert "outside the allowed read paths" in result.error["message"]
    assert "allowed_read_paths" in result.error["message"]


async def test_symlink_pointing_outside_cannot_be_read_or_written(workdir: Path) -> None:
    os.symlink(workdir.parent / "outside.txt", workdir / "link.txt")
    os.symlink(workdir.parent, workdir / "updir")
    tools = _tools(workdir)
    assert not (await tools["read_file"].execute({"file_path": "link.txt"})).success
    assert not (await tools["read_file"].execute({"file_path": "updir/outside.txt"})).success
    write = await tools["write_file"].execute({"file_path": "link.txt", "content": "pwned"})
    assert not write.success and "resolves to" in write.error["message"]
    edit = await tools["edit_file"].execute({"file_path": "updir/outside.txt", "old_string": "secret",
                                             "new_string": "x"})
    assert not edit.success
    assert (workdir.parent / "outside.txt").read_text() == "secret\n"


async def test_symlink_inside_the_root_is_followed(workdir: Path) -> None:
    (workdir / "real.txt").write_text("inside\n")
    os.symlink(workdir / "real.txt", workdir / "alias.txt")
    result = await _tools(workdir)["read_file"].execute({"file_path": "alias.txt"})
    assert result.success and "inside" in result.output


async def test_write_outside_is_denied_and_nothing_is_created(workdir: Path) -> None:
    result = await _tools(workdir)["write_file"].execute({"file_path": "../new.txt", "content": "x"})
    assert not result.success and not (workdir.parent / "new.txt").exists()


async def test_denied_paths_win_over_allowed_roots(workdir: Path) -> None:
    ssh = Path.home() / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text("KEY")
    tools = _tools(workdir, allowed_read_paths=["~"], allowed_write_paths=["~"])
    read = await tools["read_file"].execute({"file_path": "~/.ssh/id_rsa"})
    assert not read.success and "denied path ~/.ssh" in read.error["message"]
    assert not (await tools["write_file"].execute({"file_path": "~/.ssh/config", "content": "x"})).success
    assert (await tools["read_file"].execute({"file_path": "~"})).success


async def test_configured_roots_widen_and_narrow_access(workdir: Path) -> None:
    (workdir / "docs").mkdir()
    tools = _tools(workdir, allowed_read_paths=[str(workdir.parent)], allowed_write_paths=["docs"])
    assert (await tools["read_file"].execute({"file_path": "../outside.txt"})).success
    assert (await tools["write_file"].execute({"file_path": "docs/a.md", "content": "x"})).success
    assert not (await tools["write_file"].execute({"file_path": "b.md", "content": "x"})).success


async def test_search_skips_symlinks_leading_outside(workdir: Path) -> None:
    (workdir / "mine.txt").write_text("secret too\n")
    os.symlink(workdir.parent / "outside.txt", workdir / "link.txt")
    os.symlink(workdir.parent, workdir / "updir")
    tools = _tools(workdir)
    grep = await tools["grep"].execute({"pattern": "secret"})
    assert grep.output == "mine.txt"
    glob = await tools["glob"].execute({"pattern": "**/*.txt"})
    assert glob.output == "mine.txt"
    assert not (await tools["glob"].execute({"pattern": "../*.txt"})).success
    assert not (await tools["grep"].execute({"pattern": "secret", "path": ".."})).success
