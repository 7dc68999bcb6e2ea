"""Configs and hooks written for upstream Amplifier's hook-shell work here: its module keys (``enabled``,
``allow_blocking``, ``hooks_dirs``, ``default_timeout``, ``max_timeout``, ``enabled_events``, ...), its user folder
``~/.amplifier/hooks/``, its case-insensitive matchers and MCP tool names, and the stdin fields its scripts read."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from hook_lab import messages, one_hook

from amplifier_core.module_config import ModuleConfigError

RECORD = 'cat >> "$AMPLIFIER_PROJECT_DIR/events.jsonl"; echo >> "$AMPLIFIER_PROJECT_DIR/events.jsonl"'
BLOCK = 'echo "not on my watch" >&2; exit 2'


def mark(label: str) -> str:
    return f'echo {label} >> "$AMPLIFIER_PROJECT_DIR/order.txt"'


def order(lab) -> list[str]:
    path = lab.project / "order.txt"
    return path.read_text().split() if path.exists() else []


async def pre(coordinator, tool: str, **tool_input):
    return await coordinator.hooks.emit("tool:pre", {"tool_name": tool, "tool_input": tool_input,
                                                     "tool_call_id": "call-1"})


async def test_upstream_behaviour_config_mounts_and_its_hooks_run(lab) -> None:
    # behaviors/hook-shell.yaml of upstream: enabled, timeout, allow_blocking.
    lab.write_hooks({"PreToolUse": one_hook(BLOCK, matcher="Bash")})
    coordinator = await lab.mount({"enabled": True, "timeout": 30, "allow_blocking": True})
    blocked = await pre(coordinator, "bash", command="ls")
    assert blocked.action == "deny" and blocked.reason == "not on my watch"


async def test_enabled_false_runs_nothing(lab) -> None:
    lab.write_hooks({"PreToolUse": one_hook(BLOCK)})
    coordinator = await lab.mount({"enabled": False, "hooks": {"Stop": one_hook(mark("stop"))}})
    assert coordinator.hook_registrations == []
    assert (await pre(coordinator, "bash")).action == "continue"


async def test_allow_blocking_false_turns_a_block_into_a_warning(lab) -> None:
    lab.write_hooks({"PreToolUse": [*one_hook(BLOCK), *one_hook(mark("after"))]})
    coordinator = await lab.mount({"allow_blocking": False})
    assert (await pre(coordinator, "bash", command="ls")).action == "continue"
    assert order(lab) == ["after"]  # the hooks after it still ran
    (warning,) = messages(coordinator)
    assert "would block (not on my watch), but allow_blocking is false: the session goes on" in warning


async def test_upstream_user_hooks_folder_runs_first(lab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    upstream = home / ".amplifier" / "hooks"
    lab.write_hooks({"PreToolUse": one_hook(mark("upstream-user"))}, upstream / "hooks.json")
    lab.write_hooks({"PreToolUse": one_hook(mark("upstream-plugin"))}, upstream / "guard" / "hooks.json")
    lab.write_hooks({"PreToolUse": one_hook(mark("user"))}, lab.user_config / "hooks" / "hooks.json")
    lab.write_hooks({"PreToolUse": one_hook(mark("project"))})
    await pre(await lab.mount(), "bash")
    assert order(lab) == ["upstream-user", "upstream-plugin", "user", "project"]
    lab.project.joinpath("order.txt").unlink()
    await pre(await lab.mount({"user_hooks": False}), "bash")
    assert order(lab) == ["project"]


async def test_hooks_dirs_replace_the_default_folders(lab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    lab.write_hooks({"PreToolUse": one_hook(mark("default-project"))})
    lab.write_hooks({"PreToolUse": one_hook(mark("user"))}, lab.user_config / "hooks" / "hooks.json")
    lab.write_hooks({"PreToolUse": one_hook(mark("relative"))}, lab.project / "ci" / "hooks" / "hooks.json")
    lab.write_hooks({"PreToolUse": one_hook(mark("home"))}, tmp_path / "home" / "my-hooks" / "lint" / "hooks.json")
    await pre(await lab.mount({"hooks_dirs": ["ci/hooks", "~/my-hooks"]}), "bash")
    assert order(lab) == ["relative", "home"]


async def test_default_timeout_and_max_timeout(lab, fifo: Path) -> None:
    waits = f"cat {fifo} > /dev/null"
    lab.write_hooks({"PreToolUse": one_hook(waits, timeout=600)})
    coordinator = await lab.mount({"default_timeout": 20, "max_timeout": 1})
    assert (await pre(coordinator, "bash")).action == "continue"
    (warning,) = messages(coordinator)
    assert "timed out after 1s and was stopped" in warning


def test_default_timeout_is_upstreams_name_for_timeout() -> None:
    from amplifier_module_hook_shell import HookShellConfig

    assert HookShellConfig(default_timeout=12).timeout == 12
    assert HookShellConfig(timeout=50, max_timeout=20).timeout == 20
    with pytest.raises(ValueError, match=r"'default_timeout' .* and 'timeout' disagree"):
        HookShellConfig(default_timeout=12, timeout=13)


async def test_enabled_events_limits_which_hooks_run(lab) -> None:
    lab.write_hooks({"PreToolUse": one_hook(mark("pre")), "Stop": one_hook(mark("stop"))})
    coordinator = await lab.mount({"enabled_events": ["PreToolUse", "SessionStart"]})
    assert {registration.event for registration in coordinator.hook_registrations} == {"tool:pre"}
    await pre(coordinator, "bash")
    assert order(lab) == ["pre"]


@pytest.mark.parametrize(("config", "says"), [
    ({"fail_open": False}, "'fail_open: false' is not supported"),
    ({"enabled_events": ["PreToolUse", "PostTool"]}, "'enabled_events' names unknown events ['PostTool']"),
])
async def test_upstream_keys_we_cannot_honour_are_one_clear_error(lab, config, says) -> None:
    with pytest.raises(ModuleConfigError) as raised:
        await lab.mount(config)
    assert str(raised.value).startswith("hook-shell config: ") and says in str(raised.value)


async def test_fail_open_and_verbose_logging_as_upstream_writes_them_are_accepted(lab) -> None:
    lab.write_hooks({"PreToolUse": one_hook(mark("ran"))})
    await pre(await lab.mount({"fail_open": True, "verbose_logging": True}), "bash")
    assert order(lab) == ["ran"]


async def test_matchers_ignore_case_and_match_upstream_mcp_tool_names(lab) -> None:
    lab.write_hooks({"PreToolUse": [*one_hook(mark("bash"), matcher="BASH"),
                                    *one_hook(mark("git"), matcher="mcp_git_.*"),
                                    *one_hook(mark("ours"), matcher="mcp__git__status")]})
    coordinator = await lab.mount()
    for tool in ("bash", "mcp__git__status", "mcp__gitlab__status", "mcp__git__log__x"):
        await pre(coordinator, tool)
    assert order(lab) == ["bash", "git", "ours", "git"]


async def test_stdin_carries_upstreams_field_names_too(lab) -> None:
    lab.write_hooks({"PostToolUse": one_hook(RECORD), "SessionStart": one_hook(RECORD)})
    coordinator = await lab.mount()
    result = {"success": True, "output": "ok", "error": None}
    await coordinator.hooks.emit("tool:post", {"tool_name": "bash", "tool_input": {"command": "ls"},
                                               "result": result})
    await coordinator.hooks.emit("session:resume", {"session_id": "s1"})
    post, start = lab.read_events()
    assert post["tool_result"] == post["tool_response"] == result
    assert start["trigger"] == start["source"] == "resume"
    for event in (post, start):
        assert event["timestamp"].endswith("Z")
        assert datetime.fromisoformat(event["timestamp"].replace("Z", "+00:00")).tzinfo is not None


async def test_new_content_answers_are_a_warning_naming_the_replacement(lab) -> None:
    lab.write_hooks({"PreToolUse": one_hook("""echo '{"newContent": "x"}'""")})
    coordinator = await lab.mount()
    assert (await pre(coordinator, "write_file", path="a", content="y")).action == "continue"
    (warning,) = messages(coordinator)
    assert "returned newContent, which is not supported here" in warning and "updatedInput" in warning


async def test_events_we_do_not_have_say_what_to_use_instead(lab) -> None:
    lab.write_hooks({"TaskCompleted": one_hook(mark("x")), "TeammateIdle": one_hook(mark("y"))})
    coordinator = await lab.mount()
    task, teammate = messages(coordinator)
    assert "hooks.TaskCompleted: this event does not exist in amplifier" in task and "use SubagentStop" in task
    assert "use Notification with the matcher idle_prompt" in teammate
    assert coordinator.hook_registrations == []


async def test_a_single_matcher_group_object_and_a_bom_are_read(lab) -> None:
    path = lab.hooks_dir / "hooks.json"
    document = {"hooks": {"PreToolUse": {"matcher": "Bash", "hooks": [{"type": "command", "command": BLOCK}]}}}
    path.write_text(json.dumps(document), encoding="utf-8-sig")
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    assert (await pre(await lab.mount(), "bash")).action == "deny"


def test_allow_user_and_project_hooks_are_upstreams_names() -> None:
    from amplifier_module_hook_shell import HookShellConfig

    config = HookShellConfig(allow_user_hooks=False, allow_project_hooks=False)
    assert (config.user_hooks, config.project_hooks) == (False, False)
    with pytest.raises(ValueError, match=r"'allow_user_hooks' \(upstream's name\) and 'user_hooks' disagree"):
        HookShellConfig(allow_user_hooks=False, user_hooks=True)


async def test_variables_written_to_the_env_file_reach_later_hooks(lab) -> None:
    persist = ("""echo 'export BUILD_MODE="release"' >> "$CLAUDE_ENV_FILE"; """
               """echo 'TARGET=x86' >> "$AMPLIFIER_ENV_FILE" """)
    show = 'echo "$BUILD_MODE $TARGET" >> "$AMPLIFIER_PROJECT_DIR/order.txt"'
    lab.write_hooks({"SessionStart": one_hook(persist), "PreToolUse": one_hook(show)})
    coordinator = await lab.mount()
    await coordinator.hooks.emit("session:start", {"session_id": "s1"})
    await pre(coordinator, "bash")
    assert order(lab) == ["release", "x86"]


async def test_the_env_file_folder_is_removed_at_unmount(lab) -> None:
    where = 'dirname "$AMPLIFIER_ENV_FILE" >> "$AMPLIFIER_PROJECT_DIR/order.txt"'
    lab.write_hooks({"PreToolUse": one_hook(where)})
    coordinator = await lab.mount()
    await pre(coordinator, "bash")
    (folder,) = order(lab)
    assert Path(folder).is_dir()
    await coordinator.cleanup()
    assert not Path(folder).exists()


async def test_plugin_root_names_the_folder_of_the_hooks_file(lab) -> None:
    plugin = lab.hooks_dir / "formatter"
    plugin.mkdir(parents=True)
    (plugin / "run.sh").write_text('#!/bin/sh\necho "ran $(basename "$CLAUDE_PLUGIN_ROOT")" >> '
                                   '"$AMPLIFIER_PROJECT_DIR/order.txt"\n')
    (plugin / "run.sh").chmod(0o755)
    lab.write_hooks({"PreToolUse": one_hook("${CLAUDE_PLUGIN_ROOT}/run.sh")}, plugin / "hooks.json")
    await pre(await lab.mount(), "bash")
    assert order(lab) == ["ran", "formatter"]


async def test_exit_2_with_a_json_reason_and_no_stderr_gives_that_reason(lab) -> None:
    lab.write_hooks({"PreToolUse": one_hook("""echo '{"decision": "block", "reason": "dangerous command"}'; exit 2""")})
    blocked = await pre(await lab.mount(), "bash", command="rm -rf /")
    assert blocked.action == "deny" and blocked.reason == "dangerous command"
