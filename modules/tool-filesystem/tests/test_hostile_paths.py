"""A hostile model's path tricks: races between check and use, NUL bytes, brace bombs, git hooks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from amplifier_module_tool_filesystem import FilesystemConfig, build_tools


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("SECRET-KEY\n")
    return work


def _tools(workdir: Path, **config) -> dict:
    class Coordinator:
        hooks = None

        def get_capability(self, name: str):
            return str(workdir) if name == "session.working_dir" else None

    return {tool.name: tool for tool in build_tools(FilesystemConfig(**config), Coordinator())}


def _swap_after_check(tool, method: str, swap) -> None:
    """Run ``swap`` right after the policy approved the path: what a concurrent bash call could do."""
    original = getattr(tool.policy, method)

    def checked_then_swapped(raw: str) -> Path:
        path = original(raw)
        swap()
        return path

    setattr(tool.policy, method, checked_then_swapped)


async def test_write_does_not_follow_a_directory_swapped_for_a_symlink_after_the_check(workdir: Path) -> None:
    outside = workdir.parent / "outside"

    def swap() -> None:
        (workdir / "sub").rename(workdir / "sub.old")
        os.symlink(outside, workdir / "sub")

    tool = _tools(workdir)["write_file"]
    _swap_after_check(tool, "check_write", swap)
    result = await tool.execute({"file_path": "sub/planted.txt", "content": "pwned"})
    assert not result.success
    assert not (outside / "planted.txt").exists()
    assert "changed while" in result.error["message"]


async def test_write_does_not_follow_a_new_parent_swapped_for_a_symlink_after_the_check(workdir: Path) -> None:
    outside = workdir.parent / "outside"
    tool = _tools(workdir)["write_file"]
    _swap_after_check(tool, "check_write", lambda: os.symlink(outside, workdir / "fresh"))
    result = await tool.execute({"file_path": "fresh/deeper/planted.txt", "content": "pwned"})
    assert not result.success
    assert not (outside / "deeper").exists()


async def test_edit_does_not_read_a_file_swapped_for_a_symlink_after_the_check(workdir: Path) -> None:
    target = workdir / "notes.txt"
    target.write_text("SECRET-NOTE\n")

    def swap() -> None:
        target.unlink()
        os.symlink(workdir.parent / "outside" / "secret.txt", target)

    tool = _tools(workdir)["edit_file"]
    _swap_after_check(tool, "check_write", swap)
    result = await tool.execute({"file_path": "notes.txt", "old_string": "SECRET", "new_string": "copied"})
    assert not result.success
    assert target.is_symlink()  # the secret was not copied into the working directory
    assert (workdir.parent / "outside" / "secret.txt").read_text() == "SECRET-KEY\n"


async def test_read_does_not_follow_a_file_swapped_for_a_symlink_after_the_check(workdir: Path) -> None:
    target = workdir / "notes.txt"
    target.write_text("harmless\n")

    def swap() -> None:
        target.unlink()
        os.symlink(workdir.parent / "outside" / "secret.txt", target)

    tool = _tools(workdir)["read_file"]
    _swap_after_check(tool, "check_read", swap)
    result = await tool.execute({"file_path": "notes.txt"})
    assert not result.success
    assert "SECRET" not in str(result.output) + str(result.error)


async def test_writes_through_symlinks_inside_the_root_still_work(workdir: Path) -> None:
    (workdir / "real").mkdir()
    os.symlink(workdir / "real", workdir / "alias")
    os.symlink(workdir / "real" / "f.txt", workdir / "f-link.txt")
    tools = _tools(workdir)
    assert (await tools["write_file"].execute({"file_path": "alias/new/f.txt", "content": "one\n"})).success
    assert (workdir / "real" / "new" / "f.txt").read_text() == "one\n"
    (workdir / "real" / "f.txt").write_text("a\n")
    assert (await tools["edit_file"].execute({"file_path": "f-link.txt", "old_string": "a",
                                              "new_string": "b"})).success
    assert (workdir / "real" / "f.txt").read_text() == "b\n"
    assert (await tools["read_file"].execute({"file_path": "f-link.txt"})).output.endswith("b")


@pytest.mark.parametrize("tool, arguments", [
    ("read_file", {"file_path": "a\0b"}),
    ("write_file", {"file_path": "a\0b", "content": "x"}),
    ("grep", {"pattern": "x", "path": "a\0"}),
    ("glob", {"pattern": "*", "path": "\0"}),
])
async def test_a_path_with_a_nul_byte_is_a_clear_error(workdir: Path, tool: str, arguments: dict) -> None:
    result = await _tools(workdir)[tool].execute(arguments)
    assert not result.success
    assert "NUL" in result.error["message"] and "unexpectedly" not in result.error["message"]


async def test_glob_refuses_a_brace_pattern_that_expands_to_millions(workdir: Path) -> None:
    result = await _tools(workdir)["glob"].execute({"pattern": "{a,b}" * 25})
    assert not result.success
    assert "alternatives" in result.error["message"]


async def test_grep_glob_filter_refuses_a_brace_bomb(workdir: Path) -> None:
    (workdir / "a.txt").write_text("x\n")
    result = await _tools(workdir)["grep"].execute({"pattern": "x", "glob": "{a,b}" * 25})
    assert not result.success
    assert "alternatives" in result.error["message"]
