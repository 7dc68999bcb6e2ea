"""UserPromptSubmit, Stop, SessionStart, SessionEnd, PreCompact and Notification on their kernel events."""

from __future__ import annotations

from hook_lab import messages, one_hook

RECORD = 'cat >> "$AMPLIFIER_PROJECT_DIR/events.jsonl"; echo >> "$AMPLIFIER_PROJECT_DIR/events.jsonl"'


async def test_user_prompt_submit_exit_2_blocks_the_prompt(lab) -> None:
    guard = lab.script("prompt-guard.sh", """
case "$(jget prompt)" in *password*) echo "prompts must not contain passwords" >&2; exit 2 ;; esac
""")
    lab.write_hooks({"UserPromptSubmit": one_hook(guard)})
    coordinator = await lab.mount()
    blocked = await coordinator.hooks.emit("prompt:submit", {"prompt": "my password is hunter2"})
    assert blocked.action == "deny" and blocked.reason == "prompts must not contain passwords"
    assert (await coordinator.hooks.emit("prompt:submit", {"prompt": "hello"})).action == "continue"


async def test_user_prompt_submit_plain_stdout_is_context_for_the_model(lab) -> None:
    lab.write_hooks({"UserPromptSubmit": one_hook(lab.script("branch.sh", "echo 'current branch: main'"))})
    result = await (await lab.mount()).hooks.emit("prompt:submit", {"prompt": "hi"})
    assert result.action == "inject_context" and result.context_injection == "current branch: main"


async def test_session_start_runs_with_its_source_and_its_output_is_added_to_the_context(lab) -> None:
    start = lab.script("start.sh", RECORD + "\necho 'project uses tabs'")
    lab.write_hooks({"SessionStart": [*one_hook(start, matcher="startup")]})
    coordinator = await lab.mount()
    await coordinator.hooks.emit("session:start", {"session_id": "s1"})
    await coordinator.hooks.emit("session:resume", {"session_id": "s1"})  # matcher "startup": not run
    (event,) = lab.read_events()
    assert event["hook_event_name"] == "SessionStart" and event["source"] == "startup"
    assert event["session_id"] == "s1"
    context = coordinator.get("context").messages
    assert [message["content"] for message in context] == ["project uses tabs"]


async def test_a_resumed_session_runs_session_start_with_source_resume(lab) -> None:
    lab.write_hooks({"SessionStart": one_hook(lab.script("start.sh", RECORD), matcher="resume")})
    await (await lab.mount()).hooks.emit("session:resume", {})
    assert [event["source"] for event in lab.read_events()] == ["resume"]


async def test_stop_runs_when_a_turn_completes_and_a_block_reaches_the_model_next_time(lab) -> None:
    stop = lab.script("stop.sh", RECORD + "\necho 'tests are failing; fix them' >&2; exit 2")
    lab.write_hooks({"Stop": one_hook(stop)})
    coordinator = await lab.mount()
    result = await coordinator.hooks.emit("prompt:complete", {"response": "done", "status": "success"})
    assert result.action == "continue"
    (event,) = lab.read_events()
    assert event["hook_event_name"] == "Stop" and event["response"] == "done"
    assert event["stop_hook_active"] is False
    context = coordinator.get("context").messages
    assert context[-1]["content"] == "Stop hook feedback: tests are failing; fix them"
    assert any("tests are failing" in message for message in messages(coordinator))


async def test_session_end_reason_is_claude_codes_other_unless_the_app_names_one(lab) -> None:
    lab.write_hooks({"SessionEnd": one_hook(lab.script("end.sh", RECORD)),
                     "Notification": one_hook("true")})  # its idle timer must not outlive the session either
    coordinator = await lab.mount()
    await coordinator.hooks.emit("session:end", {"status": "completed"})
    coordinator.register_capability("session.end_reason", "prompt_input_exit")
    await coordinator.hooks.emit("session:end", {"status": "completed"})
    coordinator.register_capability("session.end_reason", "completed")  # not one of Claude Code's: other
    await coordinator.hooks.emit("session:end", {"status": "failed"})
    assert [(event["hook_event_name"], event["reason"], event["status"]) for event in lab.read_events()] == [
        ("SessionEnd", "other", "completed"), ("SessionEnd", "prompt_input_exit", "completed"),
        ("SessionEnd", "other", "failed")]


async def test_session_end_matcher_selects_by_reason(lab) -> None:
    lab.write_hooks({"SessionEnd": one_hook(lab.script("end.sh", RECORD), matcher="prompt_input_exit|clear")})
    coordinator = await lab.mount()
    await coordinator.hooks.emit("session:end", {"status": "completed"})
    assert lab.read_events() == []
    coordinator.register_capability("session.end_reason", "prompt_input_exit")
    await coordinator.hooks.emit("session:end", {"status": "completed"})
    assert [event["reason"] for event in lab.read_events()] == ["prompt_input_exit"]


async def test_pre_compact_runs_with_trigger_auto_and_cannot_block(lab) -> None:
    compact = lab.script("compact.sh", RECORD + "\necho 'keep everything' >&2; exit 2")
    lab.write_hooks({"PreCompact": one_hook(compact, matcher="auto")})
    coordinator = await lab.mount()
    result = await coordinator.hooks.emit("context:pre_compact", {"message_count": 40, "token_count": 9000})
    assert result.action == "continue"
    (event,) = lab.read_events()
    assert event["trigger"] == "auto" and event["message_count"] == 40 and event["token_count"] == 9000
    assert any("cannot block" in message and "keep everything" in message for message in messages(coordinator))


async def test_notification_runs_for_notifications_and_for_approval_requests(lab) -> None:
    lab.write_hooks({"Notification": one_hook(lab.script("notify.sh", RECORD))})
    coordinator = await lab.mount()
    await coordinator.hooks.emit("user:notification", {"message": "build finished", "level": "info"})
    await coordinator.hooks.emit("approval:required", {"tool_name": "bash", "risk_level": "high"})
    first, second = lab.read_events()
    assert first["message"] == "build finished" and first["notification_type"] == "info"
    assert second["notification_type"] == "permission_prompt" and "bash" in second["message"]


async def test_only_events_with_hooks_are_subscribed(lab) -> None:
    lab.write_hooks({"Stop": one_hook("true"), "PreToolUse": one_hook("true")})
    coordinator = await lab.mount()
    subscribed = {registration.event for registration in coordinator.hook_registrations}
    assert subscribed == {"prompt:complete", "tool:pre"}


async def test_the_input_says_the_permission_mode_as_claude_code_does(lab) -> None:
    lab.write_hooks({"UserPromptSubmit": one_hook(lab.script("prompt.sh", RECORD))})
    coordinator = await lab.mount()
    await coordinator.hooks.emit("prompt:submit", {"prompt": "one"})
    coordinator.register_capability("session.mode", "plan")
    await coordinator.hooks.emit("prompt:submit", {"prompt": "two"})
    assert [event["permission_mode"] for event in lab.read_events()] == ["default", "plan"]


async def test_pre_compact_of_a_manual_compaction_says_what_the_user_asked_to_keep(lab) -> None:
    lab.write_hooks({"PreCompact": one_hook(lab.script("compact.sh", RECORD), matcher="manual")})
    coordinator = await lab.mount()
    await coordinator.hooks.emit("context:pre_compact", {"message_count": 40})  # automatic: not matched
    await coordinator.hooks.emit("context:pre_compact", {"trigger": "manual", "custom_instructions": "the API plan",
                                                         "message_count": 12})
    (event,) = lab.read_events()
    assert event["trigger"] == "manual" and event["custom_instructions"] == "the API plan"
