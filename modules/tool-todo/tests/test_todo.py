"""tool-todo: whole-list writes, validation, persistence in the session dir, and the update event."""

from __future__ import annotations

import json
from typing import Any

from amplifier_module_tool_todo import mount

from amplifier_core import HookResult, ModuleCoordinator
from amplifier_core.module_config import ModuleConfigError


class _Session:
    session_id = "s-1"
    parent_id = None
    config: dict[str, Any] = {}


async def _mounted(session_dir=None, config=None):
    coordinator = ModuleCoordinator(_Session())
    if session_dir is not None:
        coordinator.register_capability("session.dir", str(session_dir))
    await mount(coordinator, config or {})
    return coordinator, coordinator.get("tools", "todo")


async def test_write_replaces_the_whole_list_and_list_reads_it_back(tmp_path):
    _, tool = await _mounted(tmp_path)
    await tool.execute({"action": "write", "todos": [{"content": "a", "status": "pending"}]})
    result = await tool.execute(
        {"action": "write", "todos": [{"content": "b", "status": "in_progress"}, {"content": "c", "status": "pending"}]}
    )
    assert result.success
    listed = await tool.execute({"action": "list"})
    assert [item["content"] for item in listed.output["todos"]] == ["b", "c"]
    assert listed.output["counts"] == {"pending": 1, "in_progress": 1, "completed": 0}


async def test_list_survives_a_new_tool_instance_in_the_same_session_dir(tmp_path):
    _, first = await _mounted(tmp_path)
    await first.execute({"action": "write", "todos": [{"content": "persist me", "status": "completed"}]})
    assert json.loads((tmp_path / "todo.json").read_text())[0]["content"] == "persist me"
    _, resumed = await _mounted(tmp_path)
    listed = await resumed.execute({"action": "list"})
    assert listed.output["todos"] == [{"content": "persist me", "status": "completed"}]


async def test_more_than_one_in_progress_is_rejected_and_the_list_is_unchanged(tmp_path):
    _, tool = await _mounted(tmp_path)
    await tool.execute({"action": "write", "todos": [{"content": "keep", "status": "pending"}]})
    both = [{"content": "x", "status": "in_progress"}, {"content": "y", "status": "in_progress"}]
    result = await tool.execute({"action": "write", "todos": both})
    assert not result.success
    assert "at most one in_progress" in result.error["message"]
    assert (await tool.execute({"action": "list"})).output["todos"][0]["content"] == "keep"


async def test_invalid_items_give_an_error_result_naming_the_item():
    _, tool = await _mounted()
    bad_status = await tool.execute({"action": "write", "todos": [{"content": "a", "status": "doing"}]})
    assert not bad_status.success and "todos[0].status" in bad_status.error["message"]
    not_a_list = await tool.execute({"action": "write", "todos": "a"})
    assert not not_a_list.success and "must be a list" in not_a_list.error["message"]
    unknown = await tool.execute({"action": "explode"})
    assert not unknown.success and "unknown action" in unknown.error["message"]
    not_a_dict = await tool.execute({"action": "write", "todos": ["just text"]})
    assert not not_a_dict.success


async def test_without_a_session_dir_the_list_lives_in_memory():
    _, tool = await _mounted()
    await tool.execute({"action": "create", "todos": [{"content": "mem", "status": "pending"}]})
    assert (await tool.execute({"action": "list"})).output["todos"][0]["content"] == "mem"


async def test_write_emits_todo_updated_with_the_list(tmp_path):
    coordinator, tool = await _mounted(tmp_path)
    seen: list[dict[str, Any]] = []

    async def record(event: str, data: dict[str, Any]) -> HookResult:
        seen.append(data)
        return HookResult()

    coordinator.hooks.register("todo:updated", record)
    await tool.execute({"action": "write", "todos": [{"content": "a", "status": "pending"}]})
    assert seen[0]["todos"] == [{"content": "a", "status": "pending"}]
    assert await coordinator.collect_contributions("observability.events") == [["todo:updated"]]


async def test_unknown_config_key_is_reported():
    try:
        await _mounted(config={"max_item": 3})
    except ModuleConfigError as error:
        assert "did you mean 'max_items'" in str(error)
    else:
        raise AssertionError("unknown key accepted")
