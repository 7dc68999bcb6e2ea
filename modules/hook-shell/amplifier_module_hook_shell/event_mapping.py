"""Which kernel event runs which hook event, what the matcher is compared with, and the event JSON a hook reads
on stdin (the field names other agents' hooks already read: ``session_id``, ``cwd``, ``hook_event_name``,
``tool_name``, ``tool_input``, ``tool_response``, ``prompt``, ``source``, ``trigger``, ``message``..., and upstream
Amplifier hook-shell's ``tool_result`` and ``timestamp``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from amplifier_core import events

KERNEL_EVENTS: dict[str, str] = {
    events.TOOL_PRE: "PreToolUse",
    events.TOOL_POST: "PostToolUse",
    events.PROMPT_SUBMIT: "UserPromptSubmit",
    events.PROMPT_COMPLETE: "Stop",
    events.SESSION_START: "SessionStart",
    events.SESSION_RESUME: "SessionStart",
    events.SESSION_END: "SessionEnd",
    events.CONTEXT_PRE_COMPACT: "PreCompact",
    events.USER_NOTIFICATION: "Notification",
    events.APPROVAL_REQUIRED: "Notification",
}
"""Kernel event -> hook event. A session that is resumed runs SessionStart with ``source: resume``; a tool call
waiting for the user's approval runs Notification with ``notification_type: permission_prompt``."""

TOOL_ALIASES: dict[str, tuple[str, ...]] = {
    "bash": ("Bash",),
    "write_file": ("Write",),
    "edit_file": ("Edit", "MultiEdit"),
    "read_file": ("Read",),
    "glob": ("Glob",),
    "grep": ("Grep",),
    "web_fetch": ("WebFetch",),
    "web_search": ("WebSearch",),
    "task": ("Task",),
    "todo": ("TodoWrite",),
}
"""Kernel tool name -> the names other agents give the same tool, so ``"matcher": "Bash|Write"`` works."""


@dataclass(frozen=True)
class HookEvent:
    """One kernel event seen as a hook event."""

    name: str
    match_candidates: tuple[str, ...]
    """What matchers are compared with; empty when the event has no matcher (every group runs)."""
    fields: dict[str, Any]
    """Event-specific fields of the stdin JSON."""


def tool_aliases(tool_name: str) -> tuple[str, ...]:
    """Other names of a kernel tool: other agents' (``Bash``), and for an MCP tool ``mcp__git__status`` the name
    upstream Amplifier's tool-mcp gives it (``mcp_git_status``), so matchers written for either keep working."""
    if tool_name.startswith("mcp__") and tool_name.count("__") >= 2:
        server, _, tool = tool_name[len("mcp__"):].partition("__")
        return (f"mcp_{server}_{tool}",)
    return TOOL_ALIASES.get(tool_name, ())


def _tool_fields(data: dict[str, Any]) -> tuple[tuple[str, ...], dict[str, Any]]:
    tool_name = str(data.get("tool_name") or "")
    fields: dict[str, Any] = {"tool_name": tool_name, "tool_input": data.get("tool_input") or {},
                              "tool_use_id": data.get("tool_call_id")}
    if tool_name in TOOL_ALIASES:  # the other agents' name; upstream's MCP names are for matching only
        fields["tool_alias"] = TOOL_ALIASES[tool_name][0]
    return (tool_name, *tool_aliases(tool_name)), fields


def hook_event_for(kernel_event: str, data: dict[str, Any]) -> HookEvent | None:
    name = KERNEL_EVENTS.get(kernel_event)
    if name is None:
        return None
    if name in ("PreToolUse", "PostToolUse"):
        candidates, fields = _tool_fields(data)
        if name == "PostToolUse":
            fields["tool_response"] = fields["tool_result"] = data.get("result")  # tool_result: upstream's name
        return HookEvent(name, candidates, fields)
    if name == "UserPromptSubmit":
        return HookEvent(name, (), {"prompt": data.get("prompt", "")})
    if name == "Stop":
        return HookEvent(name, (), {"stop_hook_active": False, "response": data.get("response", ""),
                                    "status": data.get("status")})
    if name == "SessionStart":
        source = "resume" if kernel_event == events.SESSION_RESUME else "startup"
        return HookEvent(name, (source,), {"source": source, "trigger": source})  # trigger: upstream's name
    if name == "SessionEnd":
        reason = str(data.get("status") or "other")
        return HookEvent(name, (reason,), {"reason": reason})
    if name == "PreCompact":
        trigger = str(data.get("trigger") or "auto")
        fields = {"trigger": trigger, "custom_instructions": "",
                  **{key: data[key] for key in ("message_count", "token_count", "budget") if key in data}}
        return HookEvent(name, (trigger,), fields)
    if kernel_event == events.APPROVAL_REQUIRED:
        tool_name = str(data.get("tool_name") or "a tool")
        return HookEvent(name, ("permission_prompt",), {
            "notification_type": "permission_prompt", "tool_name": tool_name,
            "message": f"amplifier needs your permission to use {tool_name}"})
    kind = str(data.get("notification_type") or data.get("level") or "info")
    return HookEvent(name, (kind,), {"notification_type": kind, "message": str(data.get("message") or "")})
