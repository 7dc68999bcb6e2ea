"""The hook events Claude Code has beyond the first eight, each from a Claude Code-format hooks file:
PostToolUseFailure, PermissionRequest, SubagentStart, SubagentStop, PostCompact, StopFailure, Notification
(idle_prompt). SessionEnd's reasons are in test_lifecycle_hooks."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hook_lab import RECORD, HookLab, messages, one_hook, plan, run_session

from amplifier_core.testing import MockApprovalSystem


def shell_hooks_of(coordinator: Any) -> Any:
    """The module's handler object, as mounted (its idle timer is what the idle test awaits)."""
    return next(registration.handler.__self__ for registration in coordinator.hook_registrations)


async def test_post_tool_use_failure_runs_for_failed_calls_with_the_error_and_its_feedback_reaches_the_model(
        lab: HookLab) -> None:
    failure = lab.script("failure.sh", RECORD + "\necho 'the test suite lives in tests/, try there' >&2; exit 2")
    success = lab.script("success.sh", 'echo ran >> "$AMPLIFIER_PROJECT_DIR/post.txt"')
    lab.write_hooks({"PostToolUseFailure": one_hook(failure, matcher="Bash"),
                     "PostToolUse": one_hook(success, matcher="Bash")})
    coordinator = await lab.mount()
    call = {"tool_name": "bash", "tool_input": {"command": "pytest nowhere"}, "tool_call_id": "call-7"}
    failed = await coordinator.hooks.emit("tool:post", {**call, "result": {
        "success": False, "output": "no tests ran", "error": {"message": "exit code 5"}}})
    raised = await coordinator.hooks.emit("tool:error", {**call, "error": {"type": "Cancelled", "msg": "stopped"}})
    denied = await coordinator.hooks.emit("tool:error", {**call, "error": {"type": "ToolDenied", "msg": "no"}})
    first, second = lab.read_events()
    assert first["hook_event_name"] == "PostToolUseFailure" and first["tool_name"] == "bash"
    assert first["error"] == "exit code 5" and first["is_interrupt"] is False and first["tool_use_id"] == "call-7"
    assert second["error"] == "stopped" and second["is_interrupt"] is True
    assert not (lab.project / "post.txt").exists()  # PostToolUse is for calls that succeeded
    for result in (failed, raised):
        assert result.action == "inject_context"
        assert result.context_injection == "PostToolUseFailure hook feedback: the test suite lives in tests/, try there"
    assert denied.action == "continue"  # a denied call never ran: no failure hook


async def test_permission_request_hooks_decide_the_approval_without_asking_anyone(lab: HookLab) -> None:
    decide = lab.script("decide.sh", "event=$(cat)\n" + 'printf %s "$event" | ' + RECORD + """
case "$(printf %s "$event" | jget tool_input.command)" in
  *allowed*) echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                    "decision": {"behavior": "allow"}}}' ;;
  *denied*) echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                   "decision": {"behavior": "deny", "message": "not in this repository"}}}' ;;
esac
""")
    notify = lab.script("notify.sh", 'echo "$(jget notification_type)" >> "$AMPLIFIER_PROJECT_DIR/notified.txt"')
    lab.write_hooks({"PermissionRequest": one_hook(decide, matcher="Bash"), "Notification": one_hook(notify)})
    script = [{"tool_calls": [{"name": "bash", "arguments": {"command": "touch allowed.txt"}},
                              {"name": "bash", "arguments": {"command": "touch denied.txt"}},
                              {"name": "bash", "arguments": {"command": "touch asked.txt"}}]}, {"text": "ok"}]
    approvals = MockApprovalSystem("Deny")
    hooks = [{"module": "hook-shell"}, {"module": "hooks-approval"}]
    _, context = await run_session(lab, plan(script, hooks=hooks), "make files", approvals)
    assert (lab.project / "allowed.txt").exists()
    assert not (lab.project / "denied.txt").exists() and not (lab.project / "asked.txt").exists()
    assert len(approvals.requests) == 1 and "asked.txt" in str(approvals.requests[0])  # only the undecided one
    results = [message["content"] for message in context if message["role"] == "tool"]
    assert "not in this repository" in results[1]
    seen = lab.read_events()
    assert {event["hook_event_name"] for event in seen} == {"PermissionRequest"}
    assert sorted(event["tool_input"]["command"] for event in seen) == [
        "touch allowed.txt", "touch asked.txt", "touch denied.txt"]
    # Notification (permission_prompt) runs only for the request a person was asked about
    assert (lab.project / "notified.txt").read_text().split() == ["permission_prompt"]


async def test_a_permission_request_allow_may_change_the_input_that_runs(lab: HookLab) -> None:
    rewrite = lab.script("rewrite.sh", """
jeval '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow",
        "updatedInput": {"command": d["tool_input"]["command"].replace("wrong", "right")}}}}'
""")
    lab.write_hooks({"PermissionRequest": one_hook(rewrite)})
    script = [{"tool_calls": [{"name": "bash", "arguments": {"command": "touch wrong.txt"}}]}, {"text": "ok"}]
    approvals = MockApprovalSystem("Deny")
    await run_session(lab, plan(script, hooks=[{"module": "hook-shell"}, {"module": "hooks-approval"}]), "go",
                      approvals)
    assert (lab.project / "right.txt").exists() and not (lab.project / "wrong.txt").exists()
    assert approvals.requests == []


async def run_task(lab: HookLab, hooks: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    """A real turn whose model calls the task tool (tool-task) with a stand-in spawner; returns the child's start
    and continuations (agent, instruction, id), the context after the turn, and this session's transcript path."""
    lab.write_hooks(hooks)
    spawned: list[dict[str, Any]] = []

    async def spawn(agent: str, instruction: str, parent: Any, configs: Any, child_id: str, **options: Any) -> Any:
        spawned.append({"agent": agent, "instruction": instruction, "id": child_id})
        return {"response": "LGTM", "session_id": child_id, "status": "completed", "agent": agent}

    async def resume(session_id: str, instruction: str, **options: Any) -> Any:
        spawned.append({"resumed": session_id, "instruction": instruction})
        return {"response": "LGTM, docs too", "session_id": session_id, "status": "completed", "agent": "reviewer"}

    script = [{"tool_calls": [{"name": "task", "arguments": {"agent": "reviewer", "instruction": "review a.py"}}]},
              {"text": "ok"}]
    mount_plan = plan(script, hooks=[{"module": "hook-shell"}])
    mount_plan["tools"] = [{"module": "tool-task"}]
    own_transcript = str(lab.project / "sessions" / "parent-id" / "transcript.jsonl")
    _, context = await run_session(lab, mount_plan, "get a review", capabilities={
        "session.spawn": spawn, "session.resume": resume, "agents.catalog": {"reviewer": "reviews code"},
        "session.transcript_path": own_transcript})
    return spawned, context, own_transcript


async def test_subagent_start_runs_when_a_sub_agent_starts_and_its_context_reaches_only_the_sub_agent(
        lab: HookLab) -> None:
    start = lab.script("start.sh", RECORD + """
echo '{"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "use the staging DB only"}}'
""")
    (child,), context, own_transcript = await run_task(lab, {"SubagentStart": one_hook(start, matcher="reviewer")})
    assert child["instruction"] == "review a.py\n\nuse the staging DB only"
    (started,) = lab.read_events()
    assert started["hook_event_name"] == "SubagentStart" and started["agent_type"] == "reviewer"
    assert started["agent_id"] == child["id"] and started["prompt"] == "review a.py"
    assert started["agent_transcript_path"] == own_transcript.replace("parent-id", child["id"])
    assert not any("staging DB" in str(message["content"]) for message in context)  # the child's, not ours


async def test_subagent_stop_runs_when_a_sub_agent_finishes_and_a_block_sends_it_back_to_work(lab: HookLab) -> None:
    stop = lab.script("stop.sh", "event=$(cat)\n" + 'printf %s "$event" | ' + RECORD + """
if [ "$(printf %s "$event" | jget stop_hook_active)" = false ]; then
  echo 'the reviewer skipped the docs; check them' >&2; exit 2
fi
echo '{"additionalContext": "reviewed twice"}'
""")
    (child, again), context, own_transcript = await run_task(lab, {"SubagentStop": one_hook(stop,
                                                                                             matcher="review.*")})
    assert again == {"resumed": child["id"], "instruction": "the reviewer skipped the docs; check them"}
    first, second = lab.read_events()
    assert first["hook_event_name"] == "SubagentStop" and first["agent_id"] == child["id"]
    assert first["agent_type"] == "reviewer" and first["status"] == "completed"
    assert first["last_assistant_message"] == "LGTM" and first["stop_hook_active"] is False
    assert first["agent_transcript_path"] == own_transcript.replace("parent-id", child["id"])
    assert second["stop_hook_active"] is True and second["last_assistant_message"] == "LGTM, docs too"
    (result,) = [message["content"] for message in context if message["role"] == "tool"]
    assert "LGTM, docs too" in result and "reviewed twice" in result  # its context reaches the parent's model


async def test_post_compact_runs_after_compaction_with_its_trigger_and_summary(lab: HookLab) -> None:
    lab.write_hooks({"PostCompact": one_hook(lab.script("compacted.sh", RECORD), matcher="manual")})
    coordinator = await lab.mount()
    await coordinator.hooks.emit("context:post_compact", {"messages_before": 40, "messages_after": 3,
                                                          "tokens_before": 9000, "tokens_after": 800})  # automatic
    await coordinator.hooks.emit("context:post_compact", {"trigger": "manual", "messages_before": 40,
                                                          "messages_after": 3, "summary": "we fixed the parser"})
    (event,) = lab.read_events()
    assert event["hook_event_name"] == "PostCompact" and event["trigger"] == "manual"
    assert event["compact_summary"] == "we fixed the parser" and event["messages_after"] == 3


async def test_stop_failure_runs_when_a_turn_ends_on_an_api_error_with_claude_codes_error_type(
        lab: HookLab) -> None:
    lab.write_hooks({"StopFailure": one_hook(lab.script("failed.sh", RECORD), matcher="authentication_failed")})
    script = [{"error": {"type": "AuthenticationError", "message": "invalid x-api-key"}}]
    with pytest.raises(Exception, match="invalid x-api-key"):  # the turn fails as it would without hooks
        await run_session(lab, plan(script, hooks=[{"module": "hook-shell"}]), "hello")
    (event,) = lab.read_events()
    assert event["hook_event_name"] == "StopFailure" and event["error"] == "authentication_failed"
    assert "invalid x-api-key" in event["error_details"]


async def test_notification_idle_prompt_runs_when_no_prompt_follows_a_turn(lab: HookLab) -> None:
    lab.write_hooks({"Notification": one_hook(lab.script("idle.sh", RECORD), matcher="idle_prompt")})
    coordinator = await lab.mount({"idle_seconds": 0.01})
    hooks = shell_hooks_of(coordinator)
    await coordinator.hooks.emit("execution:end", {"status": "completed"})
    pending = hooks.idle_task
    await coordinator.hooks.emit("execution:start", {"prompt": "next"})  # the person typed in time: no notice
    await asyncio.gather(pending, return_exceptions=True)
    assert pending.cancelled()
    await coordinator.hooks.emit("execution:end", {"status": "completed"})
    await asyncio.wait_for(hooks.idle_task, 10)
    (event,) = lab.read_events()
    assert event["hook_event_name"] == "Notification" and event["notification_type"] == "idle_prompt"
    assert event["message"] == "amplifier is waiting for your input"
    assert messages(coordinator) == []


async def test_suppress_output_keeps_this_modules_note_off_the_screen_but_the_model_still_reads_the_feedback(
        lab: HookLab) -> None:
    quiet = """echo '{"decision": "block", "reason": "run the linter", "suppressOutput": true}'"""
    lab.write_hooks({"Stop": one_hook(quiet)})
    coordinator = await lab.mount()
    await coordinator.hooks.emit("prompt:complete", {"response": "done", "status": "success"})
    assert coordinator.get("context").messages[-1]["content"] == "Stop hook feedback: run the linter"
    assert messages(coordinator) == []


async def test_a_sub_agents_session_runs_no_session_or_stop_hooks_but_its_tool_hooks(lab: HookLab) -> None:
    """As in Claude Code: a Stop hook (tests, a sound) runs once per turn of the person's session, not after every
    sub-agent's answer; SubagentStop in the parent stands for it. Tool hooks see the sub-agent's calls."""
    record = lab.script("record.sh", RECORD)
    lab.write_hooks({name: one_hook(record) for name in ("SessionStart", "Stop", "UserPromptSubmit", "PreToolUse")})
    coordinator = await lab.mount()
    child = {"parent_id": "the-parent-session"}
    await coordinator.hooks.emit("session:start", dict(child))
    await coordinator.hooks.emit("prompt:submit", {**child, "prompt": "do the sub-task"})
    await coordinator.hooks.emit("tool:pre", {**child, "tool_name": "bash", "tool_input": {"command": "ls"},
                                              "tool_call_id": "c1"})
    await coordinator.hooks.emit("prompt:complete", {**child, "response": "done", "status": "success"})
    (event,) = lab.read_events()
    assert event["hook_event_name"] == "PreToolUse" and event["parent_session_id"] == "the-parent-session"
    await coordinator.hooks.emit("prompt:complete", {"response": "done", "status": "success"})  # the person's
    assert [event["hook_event_name"] for event in lab.read_events()] == ["PreToolUse", "Stop"]
