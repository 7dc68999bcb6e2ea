"""Whole sessions (real loop, real tool-bash, scripted model): a hook blocks a bash command before anyone is asked,
a hook rewrites the command that really runs, SessionStart context reaches the model. Plus the kernel's validator."""

from __future__ import annotations

from pathlib import Path

from hook_lab import one_hook, plan, run_session

from amplifier_core.testing import MockApprovalSystem


async def test_a_blocked_bash_command_never_runs_and_the_model_reads_why_before_approval_is_asked(lab) -> None:
    guard = lab.script("guard.sh", """
case "$(jget tool_input.command)" in *touch*) echo "this project is read-only for agents" >&2; exit 2 ;; esac
""")
    lab.write_hooks({"PreToolUse": one_hook(guard, matcher="Bash")})
    script = [{"tool_calls": [{"name": "bash", "arguments": {"command": "touch made.txt"}}]}, {"text": "ok"}]
    approvals = MockApprovalSystem("Allow")
    hooks = [{"module": "hook-shell"}, {"module": "hooks-approval"}]
    _, messages = await run_session(lab, plan(script, hooks=hooks), "make a file", approvals)
    assert not (lab.project / "made.txt").exists()
    tool_message = next(message for message in messages if message["role"] == "tool")
    assert "this project is read-only for agents" in tool_message["content"]
    assert approvals.requests == []  # denied before hooks-approval would have asked


async def test_a_rewritten_command_is_the_one_that_runs(lab) -> None:
    rewrite = lab.script("rewrite.sh", """
jeval '{"hookSpecificOutput": {"permissionDecision": "allow",
        "updatedInput": {"command": d["tool_input"]["command"].replace("wrong.txt", "right.txt")}}}'
""")
    lab.write_hooks({"PreToolUse": one_hook(rewrite, matcher="Bash")})
    script = [{"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi > wrong.txt"}}]}, {"text": "ok"}]
    await run_session(lab, plan(script, hooks=[{"module": "hook-shell"}]), "write it")
    assert (lab.project / "right.txt").read_text() == "hi\n"
    assert not (lab.project / "wrong.txt").exists()


async def test_session_start_and_prompt_context_reach_the_model(lab) -> None:
    start = lab.script("start.sh", "echo 'SESSION-CONTEXT: the build uses make'")
    prompt = lab.script("prompt.sh", "echo 'PROMPT-CONTEXT: on branch main'")
    lab.write_hooks({"SessionStart": one_hook(start), "UserPromptSubmit": one_hook(prompt)})
    session, _ = await run_session(lab, plan(["ok"], hooks=[{"module": "hook-shell"}]), "hello")
    (request,) = session.coordinator.get("providers")["scripted"].requests
    sent = " ".join(str(message.content) for message in request.messages)
    assert "SESSION-CONTEXT: the build uses make" in sent and "PROMPT-CONTEXT: on branch main" in sent


async def test_passes_the_kernel_hook_validator() -> None:
    from amplifier_core.validation import HookValidator

    result = await HookValidator().validate(Path(__file__).parents[1] / "amplifier_module_hook_shell")
    assert result.passed, result.summary()


async def test_an_untrusted_projects_hooks_are_not_read_or_run(lab) -> None:
    ran = lab.project / "ran"
    lab.write_hooks({"PreToolUse": one_hook(f"touch {ran}")})
    coordinator = await lab.mount(trusted=False)
    await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {"command": "ls"}})
    assert not ran.exists()
    coordinator = await lab.mount(trusted=True)
    await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {"command": "ls"}})
    assert ran.exists()
