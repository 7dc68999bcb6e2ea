"""Names and bytes that are not UTF-8 are logged escaped, and one odd value never stops the log."""

from __future__ import annotations

import json
import os
from pathlib import Path

import amplifier_module_hooks_logging as hooks_logging

from amplifier_core.testing import MockCoordinator
from amplifier_support.capability_names import REDACTION_REDACT


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").split("\n") if line]


async def mounted(tmp_path: Path) -> tuple[MockCoordinator, Path]:
    coordinator = MockCoordinator()
    cleanup = await hooks_logging.mount(coordinator, {"log_dir": str(tmp_path / "{session_id}")})
    coordinator.register_cleanup(cleanup)
    return coordinator, tmp_path / "test-session" / "events.jsonl"


async def test_a_file_name_that_is_not_utf8_is_logged_escaped_and_logging_goes_on(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / os.fsdecode(b"caf\xe9.txt")).write_text("x")
    [name] = os.listdir(project)  # what a tool sees: the byte 0xE9 as the lone surrogate U+DCE9
    coordinator, path = await mounted(tmp_path)
    await coordinator.hooks.emit("tool:post", {"tool_name": "glob", "tool_input": {"path": str(project)},
                                               "result": {"output": name, name: "as a key too"}})
    await coordinator.hooks.emit("prompt:submit", {"prompt": "next"})
    logged = records(path)
    assert [record["event"] for record in logged] == ["tool:post", "prompt:submit"]
    result = logged[0]["data"]["result"]
    assert result["output"] == "caf\\xe9.txt" and result["caf\\xe9.txt"] == "as a key too"
    assert logged[1]["data"]["prompt"] == "next"


async def test_a_lone_surrogate_that_is_no_escaped_byte_is_logged_escaped(tmp_path: Path) -> None:
    coordinator, path = await mounted(tmp_path)
    await coordinator.hooks.emit("prompt:submit", {"prompt": "half a pair: \ud83d!"})
    await coordinator.hooks.emit("prompt:submit", {"prompt": "after"})
    assert [record["data"]["prompt"] for record in records(path)] == ["half a pair: \\ud83d!", "after"]


async def test_a_record_the_redaction_capability_spoils_is_skipped_not_the_rest(tmp_path: Path) -> None:
    coordinator, path = await mounted(tmp_path)

    def spoil(record: dict) -> dict:
        return {**record, "data": {"bad": "\udce9"}} if record["data"].get("prompt") == "spoiled" else record

    coordinator.register_capability(REDACTION_REDACT, spoil)
    await coordinator.hooks.emit("prompt:submit", {"prompt": "spoiled"})
    await coordinator.hooks.emit("prompt:submit", {"prompt": "after"})
    assert [record["data"].get("prompt") for record in records(path)] == ["after"]
