"""Where hooks come from (user file, project files, module config, all added up in that order) and what a bad
hooks document says."""

from __future__ import annotations

import json
import re

import pytest
from hook_lab import messages, one_hook

from amplifier_core.module_config import ModuleConfigError

RECORD = 'echo {label} >> "$AMPLIFIER_PROJECT_DIR/order.txt"'


def record(label: str) -> str:
    return RECORD.format(label=label)


async def test_user_project_plugin_and_config_hooks_all_run_in_that_order(lab) -> None:
    lab.write_hooks({"PreToolUse": one_hook(record("user"))}, lab.user_config / "hooks" / "hooks.json")
    lab.write_hooks({"PreToolUse": one_hook(record("project"))})
    lab.write_hooks({"PreToolUse": one_hook(record("plugin"))}, lab.hooks_dir / "formatter" / "hooks.json")
    coordinator = await lab.mount({"hooks": {"PreToolUse": one_hook(record("config"))}})
    await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {}})
    assert (lab.project / "order.txt").read_text().split() == ["user", "project", "plugin", "config"]


async def test_project_and_user_files_can_be_turned_off(lab) -> None:
    lab.write_hooks({"PreToolUse": one_hook(record("user"))}, lab.user_config / "hooks" / "hooks.json")
    lab.write_hooks({"PreToolUse": one_hook(record("project"))})
    coordinator = await lab.mount({"project_hooks": False, "user_hooks": False})
    await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {}})
    assert not (lab.project / "order.txt").exists()
    assert coordinator.hook_registrations == []


async def test_without_a_project_dir_capability_hooks_use_the_session_working_dir(lab) -> None:
    from amplifier_module_hook_shell import mount

    from amplifier_core.testing import MockCoordinator

    lab.write_hooks({"PreToolUse": one_hook(record("project"))})
    coordinator = MockCoordinator()
    coordinator.register_capability("session.working_dir", str(lab.project))
    coordinator.register_capability("session.project_trusted", True)
    coordinator.register_cleanup(await mount(coordinator, {}))
    lab.mounted.append(coordinator)
    await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {}})
    assert (lab.project / "order.txt").read_text().split() == ["project"]


@pytest.mark.parametrize(("hooks", "where", "says"), [
    ({"PreToolUse": "Bash"}, "hooks.PreToolUse", "must be a list of matcher groups"),
    ({"PreToolUse": {"matcher": "Bash"}}, "hooks.PreToolUse.hooks", "is missing or not a list"),
    ({"PreToolUse": [{"matcher": "Bash("}]}, "hooks.PreToolUse[0].matcher", "is not a regular expression"),
    ({"PreToolUse": [{"matcher": "Bash"}]}, "hooks.PreToolUse[0].hooks", "is missing or not a list"),
    ({"Stop": [{"hooks": [{"type": "command"}]}]}, "hooks.Stop[0].hooks[0].command", "is missing"),
    ({"Stop": [{"hooks": [{"command": "x", "timeout": "soon"}]}]}, "hooks.Stop[0].hooks[0].timeout",
     "must be a positive number"),
])
async def test_a_bad_hooks_file_is_one_warning_naming_file_key_path_and_fix_and_is_skipped(lab, hooks, where,
                                                                                            says) -> None:
    path = lab.write_hooks(hooks)
    coordinator = await lab.mount()  # the session goes on without that file
    (message,) = messages(coordinator)
    assert message.startswith("hooks file skipped: ")
    assert str(path) in message and f": {where}: " in message and says in message
    assert "; " in message.split(says, 1)[1]  # followed by how to fix it


async def test_a_hooks_file_that_is_not_json_names_the_line(lab) -> None:
    (lab.hooks_dir / "hooks.json").write_text('{"hooks": {\n  "Stop": [,]\n}}')
    coordinator = await lab.mount()
    (message,) = messages(coordinator)
    assert re.search(r"hooks\.json: line 2 column 12: not valid JSON", message)


async def test_a_bad_config_key_names_the_module(lab) -> None:
    with pytest.raises(ModuleConfigError, match="hook-shell config: unknown key 'timeout_s'"):
        await lab.mount({"timeout_s": 3})
    with pytest.raises(ModuleConfigError, match=r"hook-shell config: hooks\.Stop: must be a list"):
        await lab.mount({"hooks": {"Stop": "echo hi"}})


async def test_events_and_hook_types_other_agents_have_are_warnings_not_errors(lab) -> None:
    (lab.hooks_dir / "hooks.json").write_text(json.dumps({"description": "copied from elsewhere", "hooks": {
        "TaskCompleted": one_hook("true"),
        "PreTooluse": one_hook("true"),
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the work done?"},
                            {"type": "command", "command": "true", "statusMessage": "checking"}]}],
    }}))
    coordinator = await lab.mount()
    warnings = messages(coordinator)
    assert any("TaskCompleted: this event does not exist in amplifier" in warning for warning in warnings)
    assert any("PreTooluse: unknown hook event (did you mean PreToolUse?)" in warning for warning in warnings)
    assert any("hooks.Stop[0].hooks[0]: hook type 'prompt' is not supported" in warning for warning in warnings)
    assert {registration.event for registration in coordinator.hook_registrations} == {"prompt:complete"}
