"""Shell hooks end to end: `amplifier run` with the project's `.amplifier/hooks/hooks.json`, real hook scripts, the
real Anthropic SDK against the fake API server (or provider-scripted), real tool-bash."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from fakeapi import ToolCall, Turn

GUARD = f"""#!/bin/bash
command=$({json.dumps(sys.executable)} -c 'import json, sys; print(json.load(sys.stdin)["tool_input"]["command"])')
case "$command" in
  *"rm -rf"*) echo "recursive deletes are not allowed in this project (hook-shell e2e)" >&2; exit 2 ;;
esac
"""


def write_hook_script(project: Path, name: str, body: str) -> str:
    path = project / ".amplifier" / "hooks" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def write_hooks_json(project: Path, hooks: dict) -> None:
    (project / ".amplifier" / "hooks").mkdir(parents=True, exist_ok=True)
    (project / ".amplifier" / "hooks" / "hooks.json").write_text(json.dumps({"hooks": hooks}), encoding="utf-8")


def command_hook(command: str, matcher: str | None = None, **extra) -> list[dict]:
    group: dict = {"hooks": [{"type": "command", "command": command, **extra}]}
    if matcher is not None:
        group["matcher"] = matcher
    return [group]


def test_a_pre_tool_use_hook_blocks_a_bash_command_and_the_model_is_told_why(e2e_api) -> None:
    (e2e_api.project / "data").mkdir()
    (e2e_api.project / "data" / "keep.txt").write_text("precious\n")
    guard = write_hook_script(e2e_api.project, "guard.sh", GUARD)
    write_hooks_json(e2e_api.project, {"PreToolUse": command_hook(guard, matcher="Bash")})
    e2e_api.server.add(Turn(tool_calls=[ToolCall("bash", {"command": "rm -rf data"})]))
    e2e_api.server.add(Turn(text="The hook refused the delete."))
    e2e_api.profile("hooked", tools=("tool-bash",), hooks=("hooks-streaming-ui", "hook-shell"))

    result = e2e_api.run("run", "-P", "hooked", "clean up the data dir")

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("The hook refused the delete.")
    assert (e2e_api.project / "data" / "keep.txt").read_text() == "precious\n"
    sent_back = json.dumps(e2e_api.server.requests[1].json["messages"][-1])
    assert "recursive deletes are not allowed in this project (hook-shell e2e)" in sent_back
    tool_message = next(m for m in e2e_api.transcript(e2e_api.only_session()) if m["role"] == "tool")
    assert "recursive deletes are not allowed" in tool_message["content"]


def test_failing_hooks_are_warnings_and_hooks_never_see_keys(e2e, tmp_path: Path) -> None:
    fifo = tmp_path / "never-written.fifo"
    os.mkfifo(fifo)
    env_dump = e2e.project / "hook-env.txt"
    hooks = {
        "SessionStart": command_hook(f'env > "{env_dump}"'),
        "UserPromptSubmit": command_hook("echo '{\"decision\": nope'"),
        "PreToolUse": command_hook(f'cat "{fifo}"', matcher="Write", timeout=0.5),
        "Stop": command_hook("echo 'lint failed' >&2; exit 1"),
    }
    write_hooks_json(e2e.project, hooks)
    script = [{"tool_calls": [{"name": "write_file", "arguments": {"file_path": "a.txt", "content": "x\n"}}]},
              {"text": "Wrote a.txt."}]
    e2e.profile("hooked", provider="scripted", script=script, hooks=("hooks-streaming-ui", "hook-shell"))

    result = e2e.run("run", "-P", "hooked", "write a file",
                     env={"MY_SERVICE_TOKEN": "tok-should-not-leak", "ANTHROPIC_API_KEY": "sk-ant-not-for-hooks"})

    assert result.returncode == 0, result.stderr
    assert result.stdout == "Wrote a.txt.\n"
    assert (e2e.project / "a.txt").read_text() == "x\n"  # a timed-out PreToolUse hook does not block
    assert "[warning] hook:hook-shell: UserPromptSubmit hook" in result.stderr
    assert "printed invalid JSON" in result.stderr
    assert "timed out after 0.5s and was stopped" in result.stderr
    assert "failed with exit code 1: lint failed" in result.stderr
    dumped = env_dump.read_text()
    assert "tok-should-not-leak" not in dumped and "sk-ant-not-for-hooks" not in dumped
    assert f"AMPLIFIER_PROJECT_DIR={e2e.project}" in dumped


def test_user_hooks_run_before_project_hooks_in_the_project_root_from_a_subdirectory(e2e) -> None:
    order = e2e.project / "order.txt"
    user_hooks = e2e.home / "config" / "hooks" / "hooks.json"
    user_hooks.parent.mkdir(parents=True)
    user_hooks.write_text(json.dumps({"hooks": {"UserPromptSubmit": command_hook(f'echo "user $PWD" >> "{order}"')}}))
    write_hooks_json(e2e.project, {"UserPromptSubmit": command_hook(f'echo "project $PWD" >> "{order}"')})
    e2e.profile("hooked", provider="scripted", script=["Done."], hooks=("hooks-streaming-ui", "hook-shell"))
    subdirectory = e2e.project / "src" / "pkg"
    subdirectory.mkdir(parents=True)

    result = e2e.run("run", "-P", "hooked", "hello", cwd=subdirectory)

    assert result.returncode == 0, result.stderr
    assert order.read_text().splitlines() == [f"user {e2e.project}", f"project {e2e.project}"]


def test_a_broken_hooks_file_is_a_warning_naming_the_file_and_key_and_the_run_goes_on(e2e) -> None:
    write_hooks_json(e2e.project, {"PreToolUse": [{"matcher": "Bash(", "hooks": []}]})
    e2e.profile("hooked", provider="scripted", script=["Done."], hooks=("hook-shell",))

    result = e2e.run("run", "-P", "hooked", "hello")

    assert result.returncode == 0, result.stderr
    assert result.stdout == "Done.\n"
    assert "Traceback" not in result.stderr and "hooks file skipped" in result.stderr
    assert ".amplifier/hooks/hooks.json: hooks.PreToolUse[0].matcher: 'Bash(' is not a regular expression" in (
        result.stderr.replace("\n", " "))


def test_a_hook_asking_for_approval_is_denied_headless_and_granted_with_approval_allow(e2e) -> None:
    ask = '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "writes need a human"}}'
    write_hooks_json(e2e.project, {"PreToolUse": command_hook(f"echo '{ask}'", matcher="Write")})
    script = [{"tool_calls": [{"name": "write_file", "arguments": {"file_path": "a.txt", "content": "x\n"}}]},
              {"text": "Not written.", "match": "denied"},
              {"text": "Written."}]
    e2e.profile("asking", provider="scripted", script=script, hooks=("hooks-streaming-ui", "hook-shell"))

    denied = e2e.run("run", "-P", "asking", "write a file")
    assert denied.returncode == 0, denied.stderr
    assert denied.stdout == "Not written.\n" and not (e2e.project / "a.txt").exists()
    assert "writes need a human" in denied.stderr

    allowed = e2e.run("run", "-P", "asking", "--approval", "allow", "write a file")
    assert allowed.returncode == 0, allowed.stderr
    assert allowed.stdout == "Written.\n" and (e2e.project / "a.txt").read_text() == "x\n"


def test_a_permission_request_hook_answers_approvals_in_a_headless_run(e2e) -> None:
    decide = f"""#!/bin/bash
command=$({json.dumps(sys.executable)} -c 'import json, sys; print(json.load(sys.stdin)["tool_input"]["command"])')
case "$command" in
  "touch made.txt") behavior=allow ;;
  *) behavior=deny ;;
esac
echo '{{"hookSpecificOutput": {{"hookEventName": "PermissionRequest", "decision": {{"behavior": "'$behavior'",
      "message": "only made.txt may be created"}}}}}}'
"""
    write_hooks_json(e2e.project, {"PermissionRequest": command_hook(write_hook_script(e2e.project, "decide.sh",
                                                                                       decide), matcher="Bash")})
    script = [{"tool_calls": [{"name": "bash", "arguments": {"command": "touch made.txt"}},
                              {"name": "bash", "arguments": {"command": "touch other.txt"}}]},
              {"text": "Done."}]
    e2e.profile("deciding", provider="scripted", script=script, tools=("tool-bash",),
                hooks=("hooks-streaming-ui", "hook-shell", "hooks-approval"))

    result = e2e.run("run", "-P", "deciding", "make two files")

    assert result.returncode == 0, result.stderr
    assert (e2e.project / "made.txt").exists() and not (e2e.project / "other.txt").exists()
    tool_results = [m["content"] for m in e2e.transcript(e2e.only_session()) if m["role"] == "tool"]
    assert "only made.txt may be created" in tool_results[1]
