"""hooks-approval: rule decisions (per shell command), ask_user requests, remembered rules, saved rules."""

from __future__ import annotations

import logging
from pathlib import Path

import amplifier_module_hooks_approval as approval
import pytest

from amplifier_core import AmplifierSession, HookResult
from amplifier_core.module_config import ModuleConfigError
from amplifier_core.testing import MockApprovalSystem, MockCoordinator


async def mounted(config: dict | None = None, saved: list | None = None, interactive: bool = True) -> MockCoordinator:
    coordinator = MockCoordinator()
    if interactive:  # a person can answer (the app registers this in the chat)
        coordinator.register_capability("approval.interactive", True)
    if saved is not None:
        coordinator.register_capability("approval.rules", saved)
    cleanup = await approval.mount(coordinator, config or {})
    coordinator.register_cleanup(cleanup)
    return coordinator


async def pre(coordinator: MockCoordinator, tool: str, **tool_input):
    return await coordinator.hooks.emit("tool:pre", {"tool_name": tool, "tool_input": tool_input,
                                                     "tool_call_id": "c1"})


async def test_bash_is_asked_for_with_three_choices_by_default() -> None:
    result = await pre(await mounted(), "bash", command="touch a.txt")
    assert result.action == "ask_user"
    assert result.approval_options == ["Allow once", "Always allow", "Deny"]
    assert "Command: touch a.txt" in result.approval_prompt
    assert "Risk: medium (touch a.txt: changes files)" in result.approval_prompt  # says what the command does
    assert result.approval_default == "deny" and result.approval_timeout == 300.0


@pytest.mark.parametrize("command", [
    # a carriage return takes the cursor back: what follows overwrites what the person would have read
    "rm -rf ~/work #\r  Command: ls -la                    ",
    "touch \x1b[8mhidden\x1b[0m", "ls \u202e; rm -rf ~/work", "x=1\b\b\b",
    # past the old 100-character cut, or on a later line
    "git status" + " " * 120 + "; git push --force", "echo one\necho two\nrm -rf ~/work",
    "git push" + " " * 120 + "--force origin",
])
async def test_the_whole_command_is_shown_and_no_control_character_can_hide_part_of_it(command: str) -> None:
    result = await pre(await mounted(), "bash", command=command)
    prompt = result.approval_prompt
    assert not any((ord(char) < 32 and char != "\n") or 0x7F <= ord(char) < 0xA0 or 0x202A <= ord(char) <= 0x202E
                   for char in prompt), repr(prompt)
    for visible in ("rm -rf ~/work", "hidden", "git push --force", "echo two", "--force origin"):
        if visible in command:
            assert visible in prompt, prompt


async def test_read_only_tools_and_read_only_commands_pass_without_asking() -> None:
    coordinator = await mounted()
    assert (await pre(coordinator, "read_file", file_path="a.txt")).action == "continue"
    assert (await pre(coordinator, "bash", command="ls -la && pwd")).action == "continue"


async def test_write_and_edit_tools_are_asked_for_with_medium_risk() -> None:
    coordinator = await mounted()
    for tool in ("write_file", "edit_file"):
        result = await pre(coordinator, tool, file_path="notes.txt", content="x")
        assert result.action == "ask_user" and "Risk: medium" in result.approval_prompt


async def test_mcp_tools_are_asked_for_by_default_and_a_server_wide_rule_allows_them() -> None:
    asked = await pre(await mounted(), "mcp__time__get_current_time", timezone="UTC")
    assert asked.action == "ask_user" and "Risk: medium" in asked.approval_prompt
    allowed = await mounted({"rules": [{"tool": "mcp__time__*", "action": "allow"}]})
    assert (await pre(allowed, "mcp__time__get_current_time", timezone="UTC")).action == "continue"
    assert (await pre(allowed, "mcp__git__git_commit", message="x")).action == "ask_user"



@pytest.mark.parametrize("rule_tool", ["mcp_time_get_current_time", "mcp_time_*", "mcp__time__get_current_time"])
async def test_a_rule_in_either_mcp_spelling_matches_an_mcp_tool(rule_tool: str) -> None:
    """Upstream names MCP tools mcp_<server>_<tool>; ours are mcp__server__tool: both spellings match."""
    denied = await mounted({"rules": [{"tool": rule_tool, "action": "deny"}]})
    assert (await pre(denied, "mcp__time__get_current_time", timezone="UTC")).action == "deny"
    assert (await pre(denied, "mcp__git__git_status")).action == "ask_user"  # another server: not matched


async def test_upstream_spelled_ask_tools_give_an_mcp_tool_its_risk() -> None:
    quiet = await mounted({"ask_tools": ["mcp_time_*"]})
    asked = await pre(quiet, "mcp__time__get_current_time", timezone="UTC")
    assert asked.action == "ask_user" and "Risk: medium" in asked.approval_prompt
    assert (await pre(quiet, "mcp__git__git_status")).action == "continue"

async def test_a_read_only_prefix_cannot_carry_another_command() -> None:
    result = await pre(await mounted(), "bash", command="ls; rm -rf build")
    assert result.action == "ask_user"
    assert "Needs approval: rm -rf build" in result.approval_prompt


async def test_redirecting_output_of_a_read_only_command_is_asked_for() -> None:
    assert (await pre(await mounted(), "bash", command="echo hi > ~/.bashrc")).action == "ask_user"


async def test_a_deny_rule_on_any_command_of_the_line_denies_the_call() -> None:
    coordinator = await mounted({"rules": [{"tool": "bash", "command": "git *", "action": "allow"},
                                           {"tool": "bash", "command": "rm *", "action": "deny"}]})
    result = await pre(coordinator, "bash", command="git status && echo $(rm -rf ~)")
    assert result.action == "deny" and "rm -rf ~" in result.reason


async def test_an_allow_rule_must_cover_every_command_of_the_line() -> None:
    coordinator = await mounted({"rules": [{"tool": "bash", "command": "git *"}]})
    assert (await pre(coordinator, "bash", command="git status && git diff")).action == "continue"
    result = await pre(coordinator, "bash", command="git status; curl example.com")
    assert result.action == "ask_user" and "Needs approval: curl example.com" in result.approval_prompt


async def test_plain_patterns_match_the_whole_command_exactly() -> None:
    coordinator = await mounted({"rules": [{"tool": "bash", "command": "make test"}]})
    assert (await pre(coordinator, "bash", command="make   test")).action == "continue"
    assert (await pre(coordinator, "bash", command="make test-all")).action == "ask_user"


async def test_argument_patterns_allow_matching_paths_only() -> None:
    coordinator = await mounted({"rules": [{"tool": "write_file", "args": {"file_path": "docs/*"}}]})
    assert (await pre(coordinator, "write_file", file_path="docs/a.md", content="")).action == "continue"
    assert (await pre(coordinator, "write_file", file_path="src/a.py", content="")).action == "ask_user"


async def test_regex_patterns_and_a_deny_default_for_unlisted_tools() -> None:
    coordinator = await mounted({"default_action": "deny", "rules": [{"tool": "web_*", "args": {"url": "re:^https://docs\\."}}]})
    assert (await pre(coordinator, "web_fetch", url="https://docs.python.org")).action == "continue"
    assert (await pre(coordinator, "web_fetch", url="https://evil.example")).action == "deny"


async def test_always_allow_turns_the_pending_request_into_a_rule_used_from_then_on() -> None:
    coordinator = await mounted()
    asked = await pre(coordinator, "bash", command="ls && touch a.txt")
    remember = coordinator.get_capability("approval.remember")
    rule = remember(asked.approval_prompt)
    assert rule == {"tool": "bash", "command": "touch a.txt", "action": "allow"}
    assert remember(asked.approval_prompt) is None  # consumed
    assert (await pre(coordinator, "bash", command="touch a.txt")).action == "continue"
    assert (await pre(coordinator, "bash", command="touch b.txt")).action == "ask_user"


async def test_remembered_file_rules_name_the_exact_path_even_with_glob_characters() -> None:
    coordinator = await mounted()
    asked = await pre(coordinator, "write_file", file_path="a[1].txt", content="x")
    rule = coordinator.get_capability("approval.remember")(asked.approval_prompt)
    assert rule["args"] == {"file_path": "re:^a\\[1\\]\\.txt$"}
    assert (await pre(coordinator, "write_file", file_path="a[1].txt", content="y")).action == "continue"
    assert (await pre(coordinator, "write_file", file_path="a1.txt", content="y")).action == "ask_user"


async def test_saved_rules_from_the_app_capability_apply_and_broken_ones_are_skipped(caplog) -> None:
    with caplog.at_level(logging.WARNING):
        coordinator = await mounted(saved=[{"tool": "bash", "command": "touch a.txt"}, {"tool": "bash", "bogus": 1}])
    assert (await pre(coordinator, "bash", command="touch a.txt")).action == "continue"
    assert "saved rule 1" in caplog.text


async def test_use_saved_rules_false_ignores_the_capability() -> None:
    coordinator = await mounted({"use_saved_rules": False}, saved=[{"tool": "bash"}])
    assert (await pre(coordinator, "bash", command="touch a.txt")).action == "ask_user"


async def test_timeout_and_timeout_action_reach_the_request() -> None:
    result = await pre(await mounted({"timeout": 5, "timeout_action": "allow"}), "bash", command="make")
    assert result.approval_timeout == 5 and result.approval_default == "allow"


async def test_approval_events_are_emitted_for_ask_and_deny() -> None:
    coordinator = await mounted({"rules": [{"tool": "bash", "command": "rm *", "action": "deny"}]})
    seen: list[tuple[str, dict]] = []

    async def record(event, data):
        seen.append((event, data))

    for event in ("approval:required", "approval:denied"):
        coordinator.hooks.register(event, record)
    await pre(coordinator, "bash", command="make")
    await pre(coordinator, "bash", command="rm x")
    assert [event for event, _ in seen] == ["approval:required", "approval:denied"]
    assert seen[0][1]["risk_level"] == "high" and seen[0][1]["commands"] == ["make"]


async def test_a_handler_of_approval_required_decides_the_request_without_asking() -> None:
    coordinator = await mounted()
    events: list[str] = []

    async def decide(event, data):
        command = data["tool_input"]["command"]
        if command.startswith("make"):
            return HookResult(action="modify", data={**data, "decision": "allow",
                                                     "tool_input": {"command": "make -n"}})
        if command.startswith("rm"):
            return HookResult(action="deny", reason="never delete here")
        return None

    async def record(event, data):
        events.append(event)

    coordinator.hooks.register("approval:required", decide)
    for event in ("approval:granted", "approval:denied"):
        coordinator.hooks.register(event, record)
    allowed = await pre(coordinator, "bash", command="make")
    assert allowed.action == "continue" and allowed.data["tool_input"] == {"command": "make -n"}
    denied = await pre(coordinator, "bash", command="rm x")
    assert denied.action == "deny" and "never delete here" in denied.reason
    assert (await pre(coordinator, "bash", command="touch x")).action == "ask_user"  # no answer: asked as before
    assert events == ["approval:granted", "approval:denied"]
    # a request that is always asked (here: a part that cannot be judged) is not granted by a handler
    assert (await pre(coordinator, "bash", command="make; $s b")).action == "ask_user"


async def test_an_input_a_handler_changes_while_granting_is_judged_by_the_rules_again() -> None:
    coordinator = await mounted({"rules": [{"tool": "bash", "command": "rm *", "action": "deny"}]})

    rewritten = {"touch x": "rm x", "touch y": "$s y", "touch z": "touch z2"}

    async def rewrite(event, data):
        changed = {"command": rewritten[data["tool_input"]["command"]]}
        return HookResult(action="modify", data={**data, "decision": "allow", "tool_input": changed})

    coordinator.hooks.register("approval:required", rewrite)
    denied = await pre(coordinator, "bash", command="touch x")
    assert denied.action == "deny" and "as a hook changed it" in denied.reason
    asked = await pre(coordinator, "bash", command="touch y")  # changed into what cannot be judged: a person decides
    assert asked.action == "ask_user" and "touch y" in asked.approval_prompt
    granted = await pre(coordinator, "bash", command="touch z")
    assert granted.action == "continue" and granted.data["tool_input"] == {"command": "touch z2"}


async def test_unknown_config_keys_name_the_closest_valid_key() -> None:
    with pytest.raises(ModuleConfigError, match="ask_tools"):
        await approval.mount(MockCoordinator(), {"ask_tool": ["bash"]})


async def test_in_a_session_a_denied_call_never_runs_and_an_allowed_one_does(tmp_path: Path) -> None:
    target = tmp_path / "made.txt"
    script = [
        {"tool_calls": [{"name": "write_file", "arguments": {"file_path": str(target), "content": "x"}}]},
        {"text": "first done"},
        {"tool_calls": [{"name": "write_file", "arguments": {"file_path": str(target), "content": "y"}}]},
        {"text": "second done"},
    ]
    plan = {
        "session": {"orchestrator": "loop-basic", "context": "context-simple"},
        "providers": [{"module": "provider-scripted", "config": {"script": script}}],
        "tools": [{"module": "tool-filesystem", "config": {"allowed_write_paths": [str(tmp_path)]}}],
        "hooks": [{"module": "hooks-approval"}],
    }
    answers = MockApprovalSystem("Deny")
    session = AmplifierSession(plan, approval_system=answers)
    session.coordinator.register_capability("session.working_dir", str(tmp_path))
    await session.initialize()
    try:
        await session.execute("write it")
        assert not target.exists()
        answers.answer = "Allow once"
        await session.execute("write it again")
        assert target.read_text() == "y"
        assert len(answers.requests) == 2 and "Tool: write_file" in answers.requests[0]["prompt"]
    finally:
        await session.cleanup()


async def test_passes_the_kernel_hook_validator() -> None:
    from amplifier_core.validation import HookValidator

    result = await HookValidator().validate(Path(__file__).parents[1] / "amplifier_module_hooks_approval")
    assert result.passed, result.summary()


async def test_a_command_named_by_an_expansion_is_asked_for_even_under_an_allow_all_rule() -> None:
    coordinator = await mounted({"rules": [{"tool": "bash", "command": "*"}],
                                 "read_only_commands": ["ls", "$s"]})
    for line in ("s=sudo; $s -n true", "${x} a", "$(which rm) -rf /tmp/x", "`echo ls`", 'eval "$cmd"',
                 "sudo $s ls", "bash -c '$s ls'", "/usr/bin/su[d]o -n true", "/usr/*/sudo ls", "trap '$s' EXIT"):
        result = await pre(coordinator, "bash", command=line)
        assert result.action == "ask_user", line
        assert "could not be judged" in result.reason
        assert "Always allow" not in result.approval_options  # no rule could cover it
    # an expansion or eval anywhere in the line is not understood: asked, even as an argument
    assert (await pre(coordinator, "bash", command="echo $HOME; eval ls")).action == "ask_user"


async def test_a_deny_rule_still_denies_a_command_named_by_an_expansion() -> None:
    coordinator = await mounted({"rules": [{"tool": "bash", "command": "re:^\\$", "action": "deny"}]})
    assert (await pre(coordinator, "bash", command="$s -n true")).action == "deny"


async def test_a_line_with_a_part_that_cannot_be_judged_offers_no_always_allow() -> None:
    coordinator = await mounted()
    result = await pre(coordinator, "bash", command="touch a; $s b")
    assert "Always allow" not in result.approval_options
    assert "Could not be judged, so it is asked: the expansion $s in the command name: `$s`" in result.approval_prompt
    assert coordinator.get_capability("approval.remember")(result.approval_prompt) is None


async def test_in_a_session_a_command_named_by_an_expansion_is_not_run_when_nobody_can_answer(
        tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    script = [{"tool_calls": [{"name": "bash", "arguments": {"command": f"s=touch; $s {marker}"}}]},
              {"text": "done"}]
    plan = {
        "session": {"orchestrator": "loop-basic", "context": "context-simple"},
        "providers": [{"module": "provider-scripted", "config": {"script": script}}],
        "tools": [{"module": "tool-bash"}],
        "hooks": [{"module": "hooks-approval", "config": {"rules": [{"tool": "bash"}]}}],  # allow every bash
    }
    session = AmplifierSession(plan)  # no approval system: nobody can answer
    session.coordinator.register_capability("session.working_dir", str(tmp_path))
    await session.initialize()
    try:
        await session.execute("run it")
        assert not marker.exists()
    finally:
        await session.cleanup()


async def test_with_the_sandbox_on_the_user_can_run_a_shell_line_once_outside_it() -> None:
    coordinator = MockCoordinator()
    granted: list[str] = []
    coordinator.register_capability("sandbox.status", lambda: {"confined": True})
    coordinator.register_capability("sandbox.run_unconfined_once", lambda command: granted.append(command) or True)
    coordinator.register_cleanup(await approval.mount(coordinator, {}))
    result = await pre(coordinator, "bash", command="touch /etc/x")
    assert result.approval_options == ["Allow once", "Always allow", "Deny", "Run once outside the sandbox"]
    run_unconfined = coordinator.get_capability("approval.run_unconfined")
    assert run_unconfined(result.approval_prompt) is True and granted == ["touch /etc/x"]
    assert run_unconfined(result.approval_prompt) is False  # once
    assert "Run once outside the sandbox" not in (await pre(coordinator, "write_file", file_path="a")).approval_options


async def test_without_a_sandbox_the_outside_choice_is_not_offered() -> None:
    coordinator = MockCoordinator()
    coordinator.register_capability("sandbox.status", lambda: {"confined": False})
    coordinator.register_cleanup(await approval.mount(coordinator, {}))
    result = await pre(coordinator, "bash", command="touch x")
    assert result.approval_options == ["Allow once", "Always allow", "Deny"]


async def test_without_a_person_what_cannot_be_judged_is_denied_with_how_to_proceed() -> None:
    coordinator = await mounted({"rules": [{"tool": "bash"}]}, interactive=False)  # allow every bash command
    result = await pre(coordinator, "bash", command="cat <<'EOF'\nit's\nEOF\nrm -rf ~")
    assert result.action == "deny"
    assert "a heredoc" in result.reason and "Run it in the chat" in result.reason
    assert (await pre(coordinator, "bash", command="ls -la")).action == "continue"  # plain lines still pass


async def test_a_plain_ask_still_goes_to_the_approval_system_without_a_person() -> None:
    coordinator = await mounted(interactive=False)
    assert (await pre(coordinator, "bash", command="touch a.txt")).action == "ask_user"


@pytest.mark.parametrize("line", ["echo '{rules: [{tool: \"*\"}]}' 1<>.amplifier/settings.local.yaml",
                                  "git status > .mcp.json", "cp x .git/hooks/pre-commit"])
async def test_a_write_to_a_protected_place_is_always_asked_whatever_the_rules_say(tmp_path: Path, line: str) -> None:
    coordinator = await mounted({"rules": [{"tool": "bash"}]})
    coordinator.register_capability("session.project_dir", str(tmp_path))
    coordinator.register_capability("session.working_dir", str(tmp_path))
    result = await pre(coordinator, "bash", command=line)
    assert result.action == "ask_user" and "Always allow" not in result.approval_options
    assert "Writes to a protected place, always asked" in result.approval_prompt
    headless = await mounted({"rules": [{"tool": "bash"}]}, interactive=False)
    headless.register_capability("session.project_dir", str(tmp_path))
    headless.register_capability("session.working_dir", str(tmp_path))
    assert (await pre(headless, "bash", command=line)).action == "deny"


async def test_write_tools_naming_a_protected_place_are_always_asked(tmp_path: Path) -> None:
    coordinator = await mounted({"rules": [{"tool": "write_file"}, {"tool": "edit_file"}]})
    coordinator.register_capability("session.project_dir", str(tmp_path))
    coordinator.register_capability("session.working_dir", str(tmp_path))
    asked = await pre(coordinator, "write_file", file_path=".amplifier/settings.local.yaml", content="x")
    assert asked.action == "ask_user" and "Always allow" not in asked.approval_options
    assert "amplifier's project config" in asked.approval_prompt
    assert (await pre(coordinator, "edit_file", path=str(tmp_path / ".mcp.json"))).action == "ask_user"
    assert (await pre(coordinator, "write_file", file_path="src/a.py", content="x")).action == "continue"
    coordinator.register_capability("approval.interactive", False)
    assert (await pre(coordinator, "write_file", file_path=".amplifier/x.yaml", content="x")).action == "deny"


async def test_the_prompt_shows_the_parsed_commands_and_the_part_that_made_it_ask() -> None:
    coordinator = await mounted()
    result = await pre(coordinator, "bash", command="cat README.md && rm -rf build | wc -l")
    prompt = result.approval_prompt
    assert "Parsed commands: cat README.md | rm -rf build | wc -l" in prompt
    assert "Needs approval: rm -rf build" in prompt and "Risk: high (rm -rf build: deletes files)" in prompt
    asked = await pre(coordinator, "bash", command="echo ${x:-\"a'b\"}; rm -rf ~")
    assert "Could not be judged, so it is asked: the expansion ${x:-\"a'b\"} in an argument" in asked.approval_prompt


async def test_huge_and_deeply_nested_lines_are_decided_off_the_event_loop(monkeypatch) -> None:
    """A 30 KB word and 500 levels of nesting: decided (asked) in a worker thread while another task ran."""
    import asyncio
    import threading

    from amplifier_module_hooks_approval.rules import RuleBook

    judged_on: list[int] = []
    original = RuleBook.judge

    def recording(self, *args, **kwargs):
        judged_on.append(threading.get_ident())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(RuleBook, "judge", recording)
    coordinator = await mounted()
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    try:
        wide = await pre(coordinator, "bash", command="touch " + "a" * 30_000)
        deep = await pre(coordinator, "bash", command="echo " + "$(" * 500 + "ls" + ")" * 500)
    finally:
        task.cancel()
    assert wide.action == "ask_user" and deep.action == "ask_user"
    assert "nested more than" in deep.reason
    assert ticks > 2  # the loop kept running while the lines were parsed
    assert judged_on and threading.get_ident() not in judged_on  # ... in a worker thread
