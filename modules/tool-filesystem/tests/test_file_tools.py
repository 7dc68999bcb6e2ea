"""read_file, write_file, edit_file, glob and grep behaviour, and mounting through the kernel."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from amplifier_module_tool_filesystem import FilesystemConfig, build_tools, mount

from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.module_config import ModuleConfigError


@pytest.fixture
async def coordinator(tmp_path: Path) -> ModuleCoordinator:
    coordinator = ModuleCoordinator(session=None)
    work = tmp_path / "work"
    work.mkdir()
    coordinator.register_capability("session.working_dir", str(work))
    return coordinator


@pytest.fixture
async def tools(coordinator: ModuleCoordinator) -> dict:
    await mount(coordinator, {"max_line_length": 100})
    return coordinator.get("tools")


@pytest.fixture
def work(coordinator: ModuleCoordinator) -> Path:
    return Path(coordinator.get_capability("session.working_dir"))


async def test_read_numbers_lines_and_pages_with_offset_and_limit(tools: dict, work: Path) -> None:
    (work / "f.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    whole = await tools["read_file"].execute({"file_path": "f.txt"})
    assert whole.output.splitlines()[0] == "     1\tline 1" and len(whole.output.splitlines()) == 10
    part = await tools["read_file"].execute({"file_path": "f.txt", "offset": 4, "limit": 2})
    assert part.output.splitlines() == ["     4\tline 4", "     5\tline 5",
                                        "[showing lines 4-5 of 10; continue with offset 6]"]
    zero = await tools["read_file"].execute({"file_path": "f.txt", "offset": 0, "limit": 1})
    assert zero.output.startswith("     1\tline 1")


async def test_read_cuts_long_lines_and_strips_crlf(tools: dict, work: Path) -> None:
    (work / "long.txt").write_bytes(b"x" * 500 + b"\r\nshort\r\n")
    result = await tools["read_file"].execute({"file_path": "long.txt"})
    first, second = result.output.splitlines()[:2]
    assert first.endswith("... [line cut at 100 characters]") and "x" * 101 not in first
    assert second == "     2\tshort"


async def test_read_refuses_binary_and_non_utf8_files(tools: dict, work: Path) -> None:
    (work / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (work / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    binary = await tools["read_file"].execute({"file_path": "image.png"})
    assert not binary.success and "binary file" in binary.error["message"]
    latin = await tools["read_file"].execute({"file_path": "latin1.txt"})
    assert not latin.success and "not UTF-8" in latin.error["message"]


async def test_read_lists_directories_dirs_first(tools: dict, work: Path) -> None:
    (work / "b.txt").write_text("hi")
    (work / "a_dir").mkdir()
    result = await tools["read_file"].execute({"file_path": "."})
    assert result.output.splitlines()[1:] == ["DIR  a_dir/", "FILE b.txt (2 bytes)"]


async def test_read_of_a_missing_or_empty_file_says_so(tools: dict, work: Path) -> None:
    missing = await tools["read_file"].execute({"file_path": "nope.txt"})
    assert not missing.success and "File not found: nope.txt" in missing.error["message"]
    (work / "empty.txt").write_text("")
    assert "is empty" in (await tools["read_file"].execute({"file_path": "empty.txt"})).output


async def test_write_creates_parents_and_emits_artifact_event(tools: dict, work: Path,
                                                             coordinator: ModuleCoordinator) -> None:
    events = []

    async def record(event: str, data: dict) -> None:
        events.append((event, data))

    coordinator.hooks.register("artifact:write", record, name="test")
    result = await tools["write_file"].execute({"file_path": "a/b/c.txt", "content": "one\ntwo"})
    assert result.success and result.output == "Created a/b/c.txt (7 bytes, 2 lines)."
    assert (work / "a/b/c.txt").read_bytes() == b"one\ntwo"
    assert events[0][1]["path"] == str(work / "a/b/c.txt") and events[0][1]["bytes"] == 7


async def test_write_replaces_atomically_and_keeps_the_mode(tools: dict, work: Path) -> None:
    target = work / "run.sh"
    target.write_text("old")
    target.chmod(0o751)
    result = await tools["write_file"].execute({"file_path": "run.sh", "content": "new\r\n"})
    assert result.output.startswith("Replaced")
    assert target.read_bytes() == b"new\r\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert [p.name for p in work.iterdir()] == ["run.sh"]  # no temp file left


async def test_failed_write_leaves_the_old_file_and_no_temp_file(tools: dict, work: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    target = work / "keep.txt"
    target.write_text("original")

    def fail_replace(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail_replace)
    result = await tools["write_file"].execute({"file_path": "keep.txt", "content": "new content"})
    assert not result.success and "No space left" in result.error["message"]
    assert target.read_text() == "original"
    assert [p.name for p in work.iterdir()] == ["keep.txt"]


async def test_edit_replaces_a_unique_string_and_returns_a_numbered_snippet(tools: dict, work: Path) -> None:
    (work / "m.py").write_text("".join(f"line{n}\n" for n in range(1, 11)))
    result = await tools["edit_file"].execute({"file_path": "m.py", "old_string": "line5\n",
                                               "new_string": "five\nFIVE\n"})
    assert result.success
    assert result.output.splitlines() == ["Edited m.py: replaced 1 occurrence.", "     2\tline2", "     3\tline3",
                                          "     4\tline4", "     5\tfive", "     6\tFIVE", "     7\tline6",
                                          "     8\tline7", "     9\tline8"]


async def test_edit_requires_uniqueness_unless_replace_all(tools: dict, work: Path) -> None:
    (work / "d.txt").write_text("a\nx\na\nx\n")
    ambiguous = await tools["edit_file"].execute({"file_path": "d.txt", "old_string": "x", "new_string": "y"})
    assert not ambiguous.success and "occurs 2 times" in ambiguous.error["message"]
    assert "lines 2, 4" in ambiguous.error["message"]
    everything = await tools["edit_file"].execute({"file_path": "d.txt", "old_string": "x", "new_string": "y",
                                                   "replace_all": True})
    assert everything.success and "replaced 2 occurrences" in everything.output
    assert (work / "d.txt").read_text() == "a\ny\na\ny\n"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"old_string": "", "new_string": "x"}, "use write_file"),
        ({"old_string": "same", "new_string": "same"}, "identical"),
        ({"old_string": "absent", "new_string": "x"}, "not found"),
    ],
)
async def test_edit_rejects_useless_or_impossible_edits(tools: dict, work: Path, arguments: dict,
                                                        message: str) -> None:
    (work / "e.txt").write_text("same\n")
    result = await tools["edit_file"].execute({"file_path": "e.txt", **arguments})
    assert not result.success and message in result.error["message"]


async def test_edit_keeps_crlf_line_endings(tools: dict, work: Path) -> None:
    (work / "w.txt").write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    result = await tools["edit_file"].execute({"file_path": "w.txt", "old_string": "alpha\nbeta",
                                               "new_string": "ALPHA\nnew\nBETA"})
    assert result.success
    assert (work / "w.txt").read_bytes() == b"ALPHA\r\nnew\r\nBETA\r\ngamma\r\n"
    single = await tools["edit_file"].execute({"file_path": "w.txt", "old_string": "gamma", "new_string": "g\nG"})
    assert single.success and (work / "w.txt").read_bytes().endswith(b"BETA\r\ng\r\nG\r\n")


async def test_edit_keeps_lf_files_lf(tools: dict, work: Path) -> None:
    (work / "u.txt").write_bytes(b"a\nb\n")
    await tools["edit_file"].execute({"file_path": "u.txt", "old_string": "a\n", "new_string": "x\ny\n"})
    assert (work / "u.txt").read_bytes() == b"x\ny\nb\n"


async def test_glob_finds_files_newest_first_and_skips_git(tools: dict, work: Path) -> None:
    (work / "src/pkg").mkdir(parents=True)
    (work / ".git").mkdir()
    (work / ".git/x.py").write_text("")
    for index, name in enumerate(["src/old.py", "src/pkg/new.py", "top.py", "src/readme.md"]):
        (work / name).write_text("")
        os.utime(work / name, (1_000_000 + index, 1_000_000 + index))
    assert (await tools["glob"].execute({"pattern": "**/*.py"})).output.splitlines() == [
        "top.py", "src/pkg/new.py", "src/old.py"]
    assert (await tools["glob"].execute({"pattern": "*.py"})).output == "top.py"
    assert (await tools["glob"].execute({"pattern": "src/**/*.{py,md}"})).output.splitlines() == [
        "src/readme.md", "src/pkg/new.py", "src/old.py"]
    assert (await tools["glob"].execute({"pattern": "*.py", "path": "src/pkg"})).output == "src/pkg/new.py"
    assert "No files match" in (await tools["glob"].execute({"pattern": "*.rs"})).output


async def test_glob_results_are_capped_with_a_note(coordinator: ModuleCoordinator, work: Path) -> None:
    await mount(coordinator, {"max_glob_results": 2})
    for name in "abcd":
        (work / f"{name}.txt").write_text("")
    output = (await coordinator.get("tools", "glob").execute({"pattern": "*.txt"})).output.splitlines()
    assert len(output) == 3 and output[-1].startswith("[2 more files not shown")


async def test_grep_modes_context_case_and_glob_filter(tools: dict, work: Path) -> None:
    (work / "a.py").write_text("one\nTwo\nthree\nfour\ntwo again\n")
    (work / "b.md").write_text("two\n")
    (work / "blob.bin").write_bytes(b"two\x00two")
    (work / ".git").mkdir()
    (work / ".git/config").write_text("two\n")
    files = await tools["grep"].execute({"pattern": "two", "-i": True})
    assert files.output.splitlines() == ["a.py", "b.md"]
    content = await tools["grep"].execute({"pattern": "^two", "output_mode": "content", "glob": "*.py", "-B": 1})
    assert content.output.splitlines() == ["a.py-4-four", "a.py:5:two again"]
    context = await tools["grep"].execute({"pattern": "Two|again", "output_mode": "content", "glob": "*.py",
                                           "-C": 1})
    assert context.output.splitlines() == ["a.py-1-one", "a.py:2:Two", "a.py-3-three", "a.py-4-four",
                                           "a.py:5:two again"]
    count = await tools["grep"].execute({"pattern": "two", "output_mode": "count", "-i": True})
    assert count.output.splitlines() == ["a.py:2", "b.md:1", "[3 matches in 2 files]"]
    single = await tools["grep"].execute({"pattern": "three", "path": "a.py", "output_mode": "content"})
    assert single.output == "a.py:3:three"


async def test_grep_reports_bad_regex_and_bad_mode(tools: dict) -> None:
    bad = await tools["grep"].execute({"pattern": "(unclosed"})
    assert not bad.success and "Invalid regular expression" in bad.error["message"]
    mode = await tools["grep"].execute({"pattern": "x", "output_mode": "lines"})
    assert not mode.success and "output_mode" in mode.error["message"]


async def test_every_tool_has_a_schema_and_never_raises_on_bad_input(tools: dict) -> None:
    assert sorted(tools) == ["edit_file", "glob", "grep", "read_file", "write_file"]
    for tool in tools.values():
        assert tool.input_schema["type"] == "object" and tool.input_schema["required"]
        for bad in ({}, {"file_path": 3, "pattern": None}, "not a dict"):
            result = await tool.execute(bad)
            assert not result.success and result.error["message"]


def test_config_rejects_unknown_keys() -> None:
    from amplifier_core.module_config import parse_module_config

    with pytest.raises(ModuleConfigError, match="did you mean 'denied_paths'"):
        parse_module_config(FilesystemConfig, {"denied_path": []}, "tool-filesystem")


def test_working_dir_config_is_relative_to_the_session_working_dir(tmp_path: Path) -> None:
    class Coordinator:
        hooks = None

        def get_capability(self, name: str) -> str:
            return str(tmp_path)

    read_file = build_tools(FilesystemConfig(working_dir="sub"), Coordinator())[0]
    assert read_file.policy.working_dir() == tmp_path / "sub"


async def test_module_loads_through_the_kernel_loader(coordinator: ModuleCoordinator) -> None:
    from amplifier_core.loader import ModuleLoader

    mount_fn = await ModuleLoader(coordinator).load("tool-filesystem", {"max_grep_results": 3})
    await mount_fn(coordinator)
    assert coordinator.get("tools", "grep").search_limits.max_grep_results == 3


async def test_passes_the_kernel_tool_validator() -> None:
    from amplifier_core.validation import ToolValidator

    result = await ToolValidator().validate(Path(__file__).parents[1] / "amplifier_module_tool_filesystem")
    assert result.passed, result.summary()
