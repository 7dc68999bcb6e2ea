"""Big and strange files: a 100 MB line, a FIFO in the tree, a symlink loop, a directory swapped for a symlink
between the check and the listing, and the session's read-only sandbox."""

from __future__ import annotations

import asyncio
import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from amplifier_module_tool_filesystem import FilesystemConfig, build_tools

_MB = 1024 * 1024


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("SECRET-KEY\n")
    return work


def _tools(workdir: Path, capabilities: dict[str, Any] | None = None, **config: Any) -> dict:
    known = {"session.working_dir": str(workdir), **(capabilities or {})}

    class Coordinator:
        hooks = None

        def get_capability(self, name: str) -> Any:
            return known.get(name)

    return {tool.name: tool for tool in build_tools(FilesystemConfig(**config), Coordinator())}


def _peak_while(call: Any) -> tuple[Any, int]:
    """``call()``'s result and the most memory Python allocated while it ran."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_100_mb_line_is_read_in_bounded_memory(workdir: Path) -> None:
    big = workdir / "one-line.txt"
    with big.open("wb") as handle:
        handle.write(b"x" * 8192)  # text to the binary sniff; the rest is a sparse hole, still no newline
        handle.truncate(100 * _MB)
    tool = _tools(workdir, max_line_length=100)["read_file"]
    (result, _event), peak = _peak_while(lambda: tool.run({"file_path": "one-line.txt"}))
    assert result.success
    first = result.output.splitlines()[0]
    assert first == "     1\t" + "x" * 100 + "... [line cut at 100 characters]"
    assert peak < 8 * _MB, f"reading one cut line took {peak / _MB:.0f} MB"


def test_lines_after_a_huge_one_are_numbered_and_counted(workdir: Path) -> None:
    (workdir / "mixed.txt").write_bytes(b"a\n" + "é".encode() * (3 * _MB) + b"\nb\nc\nd")
    tool = _tools(workdir, max_line_length=100)["read_file"]
    (result, _event), peak = _peak_while(lambda: tool.run({"file_path": "mixed.txt", "offset": 2, "limit": 2}))
    lines = result.output.splitlines()
    assert lines[0] == "     2\t" + "é" * 100 + "... [line cut at 100 characters]"
    assert lines[1] == "     3\tb"
    assert lines[2] == "[showing lines 2-3 of 5; continue with offset 4]"
    assert peak < 4 * _MB


def test_a_cut_line_ending_inside_a_multibyte_character_is_not_refused(workdir: Path) -> None:
    # 401 bytes of 'é' pairs: the first 404 bytes end mid-character wherever the read stops
    (workdir / "wide.txt").write_bytes(b"z" + "é".encode() * 300 + b"\n")
    result, _ = _tools(workdir, max_line_length=100)["read_file"].run({"file_path": "wide.txt"})
    assert result.output.startswith("     1\tz" + "é" * 99 + "... [line cut")


async def test_grep_skips_a_fifo_in_the_tree(workdir: Path) -> None:
    fifo = workdir / "sub" / "pipe"
    os.mkfifo(fifo)
    (workdir / "sub" / "notes.txt").write_text("needle\n")
    try:
        result = await asyncio.wait_for(_tools(workdir)["grep"].execute({"pattern": "needle"}), 10)
    except TimeoutError:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # let the stuck open() return, then fail
        pytest.fail("grep hung opening a FIFO")
    assert result.success and result.output == "sub/notes.txt"


async def test_grep_on_a_fifo_itself_is_a_clear_error(workdir: Path) -> None:
    os.mkfifo(workdir / "pipe")
    result = await _tools(workdir)["grep"].execute({"pattern": "x", "path": "pipe"})
    assert not result.success and "not a regular file" in result.error["message"]


@pytest.mark.parametrize("tool, arguments", [
    ("read_file", {"file_path": "loop"}),
    ("write_file", {"file_path": "loop", "content": "x"}),
    ("edit_file", {"file_path": "loop", "old_string": "a", "new_string": "b"}),
])
async def test_a_symlink_loop_is_an_error_result(workdir: Path, tool: str, arguments: dict,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    os.symlink("loop2", workdir / "loop")
    os.symlink("loop", workdir / "loop2")
    result = await _tools(workdir)[tool].execute(arguments)
    assert not result.success
    assert "symbolic link loop" in result.error["message"] and "unexpectedly" not in result.error["message"]
    assert "Traceback" not in caplog.text


async def test_grep_and_glob_walk_past_a_symlink_loop(workdir: Path) -> None:
    os.symlink("loop2", workdir / "loop")
    os.symlink("loop", workdir / "loop2")
    (workdir / "found.txt").write_text("needle\n")
    tools = _tools(workdir)
    grep = await tools["grep"].execute({"pattern": "needle"})
    assert grep.success and grep.output == "found.txt"
    glob = await tools["glob"].execute({"pattern": "*.txt"})
    assert glob.success and glob.output == "found.txt"


async def test_listing_does_not_follow_a_directory_swapped_for_a_symlink_after_the_check(workdir: Path) -> None:
    outside = workdir.parent / "outside"
    tool = _tools(workdir)["read_file"]
    original = tool.policy.check_read

    def checked_then_swapped(raw: str) -> Path:
        path = original(raw)
        (workdir / "sub").rename(workdir / "sub.old")
        os.symlink(outside, workdir / "sub")
        return path

    tool.policy.check_read = checked_then_swapped
    result = await tool.execute({"file_path": "sub"})
    assert not result.success
    assert "secret.txt" not in str(result.output) + str(result.error)
    assert "changed while" in result.error["message"]


async def test_listing_still_shows_files_links_and_directories(workdir: Path) -> None:
    (workdir / "sub" / "a.txt").write_text("12345")
    (workdir / "sub" / "inner").mkdir()
    os.symlink("a.txt", workdir / "sub" / "link")
    result = await _tools(workdir)["read_file"].execute({"file_path": "sub"})
    assert result.output.splitlines()[1:] == ["DIR  inner/", "FILE a.txt (5 bytes)", "LINK link -> a.txt"]


@pytest.mark.parametrize("tool, arguments", [
    ("write_file", {"file_path": "new.txt", "content": "x"}),
    ("edit_file", {"file_path": "kept.txt", "old_string": "old", "new_string": "new"}),
])
async def test_a_read_only_session_refuses_writes_and_edits(workdir: Path, tool: str, arguments: dict) -> None:
    (workdir / "kept.txt").write_text("old\n")
    tools = _tools(workdir, {"session.sandbox_mode": "read-only"})
    result = await tools[tool].execute(arguments)
    assert not result.success
    message = result.error["message"]
    assert "read-only" in message and "--sandbox workspace-write" in message
    assert not (workdir / "new.txt").exists() and (workdir / "kept.txt").read_text() == "old\n"
    assert (await tools["read_file"].execute({"file_path": "kept.txt"})).success  # reading still works


@pytest.mark.parametrize("mode", [None, "workspace-write", "off"])
async def test_other_sandbox_modes_write(workdir: Path, mode: str | None) -> None:
    tools = _tools(workdir, {"session.sandbox_mode": mode})
    assert (await tools["write_file"].execute({"file_path": "new.txt", "content": "x"})).success
    assert (workdir / "new.txt").read_text() == "x"


@pytest.fixture
def odd_names(workdir: Path) -> Path:
    """A file and a directory whose names hold the byte 0xE9, which is not UTF-8."""
    (workdir / os.fsdecode(b"caf\xe9.txt")).write_text("needle\n")
    (workdir / os.fsdecode(b"d\xe9")).mkdir()
    return workdir


async def test_names_that_are_not_utf8_are_shown_escaped(odd_names: Path) -> None:
    tools = _tools(odd_names)
    glob = await tools["glob"].execute({"pattern": "*.txt"})
    assert glob.output == "caf\\xe9.txt"
    grep = await tools["grep"].execute({"pattern": "needle", "output_mode": "content"})
    assert grep.output == "caf\\xe9.txt:1:needle"
    listing = await tools["read_file"].execute({"file_path": "."})
    assert "DIR  d\\xe9/" in listing.output and "FILE caf\\xe9.txt (7 bytes)" in listing.output
    for result in (glob, grep, listing):
        result.output.encode("utf-8")  # no lone surrogate left for a transcript or an API to drop


async def test_an_escaped_name_is_taken_back_as_the_file_it_shows(odd_names: Path) -> None:
    tools = _tools(odd_names)
    read = await tools["read_file"].execute({"file_path": "caf\\xe9.txt"})
    assert read.output == "     1\tneedle"
    edit = await tools["edit_file"].execute({"file_path": "caf\\xe9.txt", "old_string": "needle",
                                             "new_string": "thread"})
    assert edit.success and edit.output.startswith("Edited caf\\xe9.txt")
    assert (odd_names / os.fsdecode(b"caf\xe9.txt")).read_text() == "thread\n"
    write = await tools["write_file"].execute({"file_path": "d\\xe9/new.txt", "content": "x"})
    assert write.success and (odd_names / os.fsdecode(b"d\xe9") / "new.txt").read_text() == "x"
    # a new name is taken as written: an escape is not turned into a byte nobody asked for
    literal = await tools["write_file"].execute({"file_path": "plain\\xe9.txt", "content": "y"})
    assert literal.success and (odd_names / "plain\\xe9.txt").read_text() == "y"
