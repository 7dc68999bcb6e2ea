"""Which kernel event runs which hook event, what the matcher is compared with, and the event JSON a hook reads
on stdin (the field names other agents' hooks already read: ``session_id``, ``cwd``, ``hook_event_name``,
``tool_name``, ``tool_input``, ``tool_response``, ``prompt``, ``source``, ``trigger``, ``message``...)."""

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


def _tool_fields(data: dict[str, Any]) -> tuple[tuple[str, ...], dict[str, Any]]:
    tool_name = str(data.get("tool_name") or "")
    aliases = TOOL_ALIASES.get(tool_name, ())
    fields: dict[str, Any] = {"tool_name": tool_name, "tool_input": data.get("tool_input") or {},
                              "tool_use_id": data.get("tool_call_id")}
    if aliases:
        fields["tool_alias"] = aliases[0]
    return (tool_name, *aliases), fields


def hook_event_for(kernel_event: str, data: dict[str, Any]) -> HookEvent | None:
    name = KERNEL_EVENTS.get(kernel_event)
    if name is None:
        return None
    if name in ("PreToolUse", "PostToolUse"):
        candidates, fields = _tool_fields(data)
        if name == "PostToolUse":
            fields["tool_response"] = data.get("result")
        return HookEvent(name, candidates, fields)
    if name == "UserPromptSubmit":
        return HookEvent(name, (), {"prompt": data.get("prompt", "")})
    if name == "Stop":
        return HookEvent(name, (), {"stop_hook_active": False, "response": data.get("response", ""),
                                    "status": data.get("status")})
    if name == "SessionStart":
        source = "resume" if kernel_event == events.SESSION_RESUME else "startup"
        return HookEvent(name, (source,), {"source": source})
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
