"""Plan mode: the model may read and think, and every tool call that could write or run something is refused.

The app registers the gate itself (a `tool:pre` hook on every session, sub-agents included) rather than leaving
it to a hook module a profile may or may not mount: the mode is the user's choice in this chat (`/mode plan`,
Shift-Tab, `run --mode plan`), it must hold whatever profile or bundle is active, and it is switched while the
session runs (capability `session.mode`, read at each call). It runs before every other `tool:pre` handler, so a
refused call is never offered for approval.

Allowed: the tools that only read (READ_ONLY_TOOLS) and `task` (its sub-agent runs in plan mode too). `bash` is
allowed only for a line amplifier_support's shell reading vouches for as read-only (plain commands known to only
read, no redirection that writes: `git status`, `ls`, `grep -r x .`); anything else, and every other tool (MCP
tools included: nothing says what they do), is refused with a reason the model reads.
"""

from __future__ import annotations

from typing import Any

from amplifier_support.capability_names import SESSION_MODE

ACCEPT_EDITS = "accept-edits"  # edits the rules could allow for good are allowed without asking (session_approval)
MODES = ("normal", "plan", ACCEPT_EDITS)
DEFAULT_MODE = "normal"
READ_ONLY_TOOLS = frozenset({"read_file", "glob", "grep", "web_fetch", "web_search", "load_skill", "todo", "task",
                             "task_output", "mcp_read_resource", "bash_output"})
GATE_PRIORITY = -10_000
REFUSAL = ("plan mode: only reading tools run now, so '{tool}' was not run{why}. Keep reading and thinking, then "
           "present your plan; the user leaves plan mode (/mode normal or Shift-Tab) to let you carry it out.")


def shell_line_only_reads(command: str) -> bool:
    """True when every command of the line is known to only read and nothing is written by a redirection."""
    from amplifier_support.shell import judge, read_line

    reading = read_line(command, strict=True)
    if not reading.plain or not reading.steps or any(redirect.writes for redirect in reading.redirects):
        return False
    for step in reading.steps:
        if any(redirect.writes for redirect in step.command.redirects):
            return False
        if not step.core and step.unwrapped.scripts:
            continue  # `sh -c '...'`: its script's commands are steps of their own
        if not judge(step.core, step.unwrapped.input_args).read_only:
            return False
    return True


def register_mode_gate(coordinator: Any, mode: str = DEFAULT_MODE) -> None:
    from amplifier_core import HookResult

    coordinator.register_capability(SESSION_MODE, mode)

    async def gate(event: str, data: dict[str, Any]) -> Any:
        if coordinator.get_capability(SESSION_MODE) != "plan":
            return HookResult(action="continue")
        tool = str(data.get("tool_name") or "")
        if tool in READ_ONLY_TOOLS:
            return HookResult(action="continue")
        why = ""
        if tool == "bash":
            given = data.get("tool_input")
            tool_input = given if isinstance(given, dict) else {}
            command = str(tool_input.get("command") or "")
            if not tool_input.get("run_in_background") and command and shell_line_only_reads(command):
                return HookResult(action="continue")
            why = " (only commands that just read run in plan mode)"
        return HookResult(action="deny", reason=REFUSAL.format(tool=tool, why=why))

    coordinator.hooks.register("tool:pre", gate, priority=GATE_PRIORITY, name="plan-mode")
