"""PreToolUse and PostToolUse: real scripts deciding on tool calls (block, deny, ask, allow, rewrite, context)."""

from __future__ import annotations

from hook_lab import messages, one_hook


async def pre(coordinator, tool: str, **tool_input):
    return await coordinator.hooks.emit("tool:pre", {"tool_name": tool, "tool_input": tool_input,
                                                     "tool_call_id": "call-1"})


async def post(coordinator, tool: str, result: dict, **tool_input):
    return await coordinator.hooks.emit("tool:post", {"tool_name": tool, "tool_input": tool_input,
                                                      "tool_call_id": "call-1", "result": result})


BLOCK_RM = """
command=$(jget tool_input.command)
case "$command" in
  *"rm -rf"*) echo "no recursive deletes here: $command" >&2; exit 2 ;;
esac
exit 0
"""


async def test_exit_2_blocks_a_bash_command_with_stderr_as_the_reason(lab) -> None:
    lab.write_hooks({"PreToolUse": one_hook(lab.script("guard.sh", BLOCK_RM), matcher="Bash")})
    coordinator = await lab.mount()
    blocked = await pre(coordinator, "bash", command="rm -rf build")
    assert blocked.action == "deny"
    assert blocked.reason == "no recursive deletes here: rm -rf build"
    assert (await pre(coordinator, "bash", command="ls")).action == "continue"


async def test_matchers_are_regexes_over_the_kernel_name_and_the_common_aliases(lab) -> None:
    record = lab.script("record.sh", """
jeval '{"tool_name": d["tool_name"], "tool_alias": d.get("tool_alias")}' >> "$AMPLIFIER_PROJECT_DIR/events.jsonl"
""")
    lab.write_hooks({"PreToolUse": [
        *one_hook(record, matcher="Bash|Write"),
        *one_hook(record, matcher="read_file"),
        *one_hook(record, matcher="mcp__.*"),
    ]})
    coordinator = await lab.mount()
    for tool in ("bash", "write_file", "edit_file", "read_file", "bash_output", "mcp__git__status"):
        await pre(coordinator, tool)
    assert lab.read_events() == [
        {"tool_name": "bash", "tool_alias": "Bash"},
        {"tool_name": "write_file", "tool_alias": "Write"},
        {"tool_name": "read_file", "tool_alias": "Read"},
        {"tool_name": "mcp__git__status", "tool_alias": None},
    ]


async def test_a_missing_empty_or_star_matcher_matches_every_tool(lab) -> None:
    record = lab.script("record.sh", "jeval 'd[\"tool_name\"]' >> \"$AMPLIFIER_PROJECT_DIR/events.jsonl\"")
    lab.write_hooks({"PreToolUse": [*one_hook(record), *one_hook(record, matcher=""), *one_hook(record, matcher="*")]})
    await pre(await lab.mount(), "todo")
    assert lab.read_events() == ["todo", "todo", "todo"]


async def test_the_event_json_on_stdin_names_session_cwd_event_tool_and_input(lab) -> None:
    lab.write_hooks({"PreToolUse": one_hook(lab.script("record.sh", 'cat >> "$AMPLIFIER_PROJECT_DIR/events.jsonl"'))})
    await pre(await lab.mount(), "bash", command="git status")
    (event,) = lab.read_events()
    assert event["session_id"] == "test-session" and event["parent_session_id"] is None
    assert event["cwd"] == str(lab.project)
    assert event["hook_event_name"] == "PreToolUse" and event["amplifier_event"] == "tool:pre"
    assert event["tool_name"] == "bash" and event["tool_input"] == {"command": "git status"}
    assert event["tool_use_id"] == "call-1"
    assert event["transcript_path"] == str(lab.project / "transcript.jsonl")


async def test_json_decision_deny_with_a_reason_in_both_output_shapes(lab) -> None:
    flat = lab.script("flat.sh", """echo '{"decision": "deny", "reason": "flat says no"}'""")
    specific = lab.script("specific.sh", """echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse",
      "permissionDecision": "deny", "permissionDecisionReason": "specific says no"}}'""")
    lab.write_hooks({"PreToolUse": [*one_hook(flat, matcher="Write"), *one_hook(specific, matcher="Edit")]})
    coordinator = await lab.mount()
    assert (await pre(coordinator, "write_file", file_path="a")).reason == "flat says no"
    edited = await pre(coordinator, "edit_file", file_path="a")
    assert edited.action == "deny" and edited.reason == "specific says no"


async def test_decision_allow_lets_the_call_go_on(lab) -> None:
    allow = lab.script("allow.sh", """echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'""")
    lab.write_hooks({"PreToolUse": one_hook(allow)})
    coordinator = await lab.mount()
    result = await pre(coordinator, "bash", command="ls")
    assert result.action == "continue" and result.data["tool_input"] == {"command": "ls"}
    assert messages(coordinator) == []


async def test_decision_ask_asks_the_user_through_the_approval_system(lab) -> None:
    ask = lab.script("ask.sh", """echo '{"decision": "ask", "reason": "pushing needs a human"}'""")
    lab.write_hooks({"PreToolUse": one_hook(ask, matcher="Bash")})
    coordinator = await lab.mount()
    result = await pre(coordinator, "bash", command="git push")
    assert result.action == "ask_user" and result.approval_default == "deny"
    assert "pushing needs a human" in result.approval_prompt and "git push" in result.approval_prompt
    processed = await coordinator.process_hook_result(result, "tool:pre", "test")
    assert processed.action == "deny"
    assert "pushing needs a human" in lab.approvals.requests[0]["prompt"]
    lab.approvals.answer = "Allow"
    assert (await coordinator.process_hook_result(result, "tool:pre", "test")).action == "continue"


async def test_a_hook_rewrites_the_tool_input_and_later_hooks_see_the_new_input(lab) -> None:
    rewrite = lab.script("rewrite.sh", """
jeval '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
        "updatedInput": {"command": d["tool_input"]["command"] + " --dry-run"}}}'
""")
    record = lab.script("record.sh", """
jeval 'd["tool_input"]' >> "$AMPLIFIER_PROJECT_DIR/events.jsonl"
""")
    lab.write_hooks({"PreToolUse": [*one_hook(rewrite, matcher="Bash"), *one_hook(record, matcher="Bash")]})
    result = await pre(await lab.mount(), "bash", command="make deploy")
    assert result.action == "continue"  # the registry folds "modify" into the data it returns
    assert result.data["tool_input"] == {"command": "make deploy --dry-run"}
    assert lab.read_events() == [{"command": "make deploy --dry-run"}]


async def test_a_block_stops_the_remaining_hooks_of_the_event(lab) -> None:
    block = lab.script("block.sh", "echo stop >&2; exit 2")
    record = lab.script("record.sh", 'cat >> "$AMPLIFIER_PROJECT_DIR/events.jsonl"')
    lab.write_hooks({"PreToolUse": [*one_hook(block), *one_hook(record)]})
    assert (await pre(await lab.mount(), "bash", command="ls")).action == "deny"
    assert lab.read_events() == []


async def test_pre_tool_use_context_is_injected_for_the_model(lab) -> None:
    context = lab.script("context.sh", """echo '{"hookSpecificOutput": {"additionalContext": "tests live in t/"}}'""")
    lab.write_hooks({"PreToolUse": one_hook(context)})
    result = await pre(await lab.mount(), "read_file", file_path="x")
    assert result.action == "inject_context" and result.context_injection == "tests live in t/"


async def test_post_tool_use_sees_the_tool_response_and_its_context_reaches_the_model(lab) -> None:
    lint = lab.script("lint.sh", """
jeval '{"additionalContext": "lint saw: " + d["tool_response"]["output"]}'
""")
    lab.write_hooks({"PostToolUse": one_hook(lint, matcher="Write|Edit")})
    coordinator = await lab.mount()
    result = await post(coordinator, "write_file", {"success": True, "output": "wrote 3 lines"}, file_path="a.py")
    assert result.action == "inject_context" and result.context_injection == "lint saw: wrote 3 lines"
    assert (await post(coordinator, "bash", {"success": True, "output": "x"}, command="ls")).action == "continue"


async def test_post_tool_use_exit_2_gives_stderr_to_the_model_without_undoing_the_call(lab) -> None:
    lab.write_hooks({"PostToolUse": one_hook(lab.script("fmt.sh", "echo 'line 3 is too long' >&2; exit 2"))})
    coordinator = await lab.mount()
    result = await post(coordinator, "write_file", {"success": True, "output": "ok"}, file_path="a.py")
    assert result.action == "inject_context"
    assert result.context_injection == "PostToolUse hook feedback: line 3 is too long"
    assert any("line 3 is too long" in message for message in messages(coordinator))


async def test_system_message_is_shown_to_the_user(lab) -> None:
    note = lab.script("note.sh", """echo '{"systemMessage": "checked by policy"}'""")
    lab.write_hooks({"PreToolUse": one_hook(note)})
    coordinator = await lab.mount()
    assert (await pre(coordinator, "bash", command="ls")).action == "continue"
    assert coordinator.display_system.messages == [
        {"message": "checked by policy", "level": "info", "source": "hook:hook-shell"}]
