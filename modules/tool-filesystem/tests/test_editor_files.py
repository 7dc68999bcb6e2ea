"""Capability `editor.files` (registered by `amplifier acp` when the editor offers fs/*): read_file, write_file and
edit_file go through the editor after the same path checks; only the offered half is used."""

from __future__ import annotations

from pathlib import Path

import pytest
from amplifier_module_tool_filesystem import mount

from amplifier_core.coordinator import ModuleCoordinator
from amplifier_support.capability_names import EDITOR_FILES, SESSION_WORKING_DIR


class Editor:
    def __init__(self, buffers: dict[str, str]) -> None:
        self.buffers = buffers
        self.calls: list[tuple[str, ...]] = []

    async def read(self, path: str) -> str:
        self.calls.append(("read", path))
        return self.buffers[path]

    async def write(self, path: str, text: str) -> None:
        self.calls.append(("write", path, text))
        self.buffers[path] = text


@pytest.fixture
async def setup(tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "doc.txt").write_text("on disk\n")
    coordinator = ModuleCoordinator(session=None)
    coordinator.register_capability(SESSION_WORKING_DIR, str(work))
    editor = Editor({str(work / "doc.txt"): "in the buffer\n"})
    await mount(coordinator, {})
    return coordinator, coordinator.get("tools"), editor, work


async def test_reads_and_edits_go_through_the_editor(setup) -> None:
    coordinator, tools, editor, work = setup
    coordinator.register_capability(EDITOR_FILES, {"read": editor.read, "write": editor.write})
    read = await tools["read_file"].execute({"file_path": "doc.txt"})
    assert read.output == "     1\tin the buffer"
    edited = await tools["edit_file"].execute({"file_path": "doc.txt", "old_string": "buffer", "new_string": "edit"})
    assert edited.success, edited.error
    assert editor.buffers[str(work / "doc.txt")] == "in the edit\n"
    assert (work / "doc.txt").read_text() == "on disk\n"  # the editor writes (or saves) the file, not the tool
    written = await tools["write_file"].execute({"file_path": "new.txt", "content": "fresh\n"})
    assert written.success and ("write", str(work / "new.txt"), "fresh\n") in editor.calls
    assert not (work / "new.txt").exists()


async def test_only_the_offered_half_is_used_and_paths_are_checked_first(setup, tmp_path: Path) -> None:
    coordinator, tools, editor, work = setup
    coordinator.register_capability(EDITOR_FILES, {"read": editor.read})
    written = await tools["write_file"].execute({"file_path": "disk.txt", "content": "to disk\n"})
    assert written.success and (work / "disk.txt").read_text() == "to disk\n"
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    refused = await tools["read_file"].execute({"file_path": str(outside)})
    assert not refused.success
    assert editor.calls == []  # neither the write nor the refused read reached the editor


async def test_an_editor_that_fails_is_a_failed_call_naming_the_file(setup) -> None:
    coordinator, tools, _, _ = setup

    async def broken(path: str) -> str:
        raise ConnectionError("the editor went away")

    coordinator.register_capability(EDITOR_FILES, {"read": broken})
    result = await tools["read_file"].execute({"file_path": "doc.txt"})
    assert not result.success and "the editor could not hand over doc.txt: the editor went away" in \
        result.error["message"]
