"""Which kernel event runs which hook events, what the matcher is compared with, and the event JSON a hook reads
on stdin (the field names Claude Code's hooks already read: ``session_id``, ``cwd``, ``hook_event_name``,
``tool_name``, ``tool_input``, ``tool_response``, ``error``, ``prompt``, ``source``, ``reason``, ``trigger``,
``agent_id``, ``agent_type``, ``notification_type``, ``message``..., and upstream Amplifier hook-shell's
``tool_result`` and ``timestamp``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from amplifier_core import events
from amplifier_core.models import json_default

AGENT_SPAWNED = "task:agent_spawned"
AGENT_RESUMED = "task:agent_resumed"
AGENT_COMPLETED = "task:agent_completed"
"""The task tool's events (upstream's names), emitted in the parent session around a sub-agent's run."""

KERNEL_EVENTS: dict[str, tuple[str, ...]] = {
    events.TOOL_PRE: ("PreToolUse",),
    events.TOOL_POST: ("PostToolUse", "PostToolUseFailure"),
    events.TOOL_ERROR: ("PostToolUseFailure",),
    events.PROMPT_SUBMIT: ("UserPromptSubmit",),
    events.PROMPT_COMPLETE: ("Stop",),
    events.PROVIDER_ERROR: ("StopFailure",),
    AGENT_SPAWNED: ("SubagentStart",),
    AGENT_RESUMED: ("SubagentStart",),
    AGENT_COMPLETED: ("SubagentStop",),
    events.SESSION_START: ("SessionStart",),
    events.SESSION_RESUME: ("SessionStart",),
    events.SESSION_END: ("SessionEnd",),
    events.CONTEXT_PRE_COMPACT: ("PreCompact",),
    events.CONTEXT_POST_COMPACT: ("PostCompact",),
    events.USER_NOTIFICATION: ("Notification",),
    events.APPROVAL_REQUIRED: ("PermissionRequest", "Notification"),
}
"""Kernel event -> the hook events it may run. A tool result that failed runs PostToolUseFailure instead of
PostToolUse; an approval about to be asked runs PermissionRequest first, and Notification
(``permission_prompt``) only when no PermissionRequest hook decided it."""

SESSION_END_REASONS = ("clear", "resume", "logout", "prompt_input_exit", "bypass_permissions_disabled", "other")
"""Claude Code's SessionEnd reasons; the app names one (capability ``session.end_reason``), else ``other``."""

STOP_FAILURE_TYPES: dict[str, str] = {
    "RateLimitError": "rate_limit",
    "QuotaExceededError": "billing_error",
    "AuthenticationError": "authentication_failed",
    "AccessDeniedError": "authentication_failed",
    "InvalidRequestError": "invalid_request",
    "ContextLengthError": "invalid_request",
    "ContentFilterError": "invalid_request",
    "NotFoundError": "model_not_found",
    "ProviderUnavailableError": "server_error",
    "NetworkError": "server_error",
    "LLMTimeoutError": "server_error",
    "StreamError": "server_error",
}
"""The kernel's provider error class -> Claude Code's StopFailure ``error`` (its matcher value); others are
``unknown``."""

IDLE_MESSAGE = "amplifier is waiting for your input"

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


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _failed_result_text(result: dict[str, Any]) -> str:
    """What a failed tool result says went wrong: its error message, else its output."""
    error = result.get("error")
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    output = result.get("output")
    if output is None:
        return "the tool failed"
    return output if isinstance(output, str) else json.dumps(output, default=json_default, ensure_ascii=False)


def _tool_events(kernel_event: str, data: dict[str, Any]) -> list[HookEvent]:
    candidates, fields = _tool_fields(data)
    if kernel_event == events.TOOL_PRE:
        return [HookEvent("PreToolUse", candidates, fields)]
    if kernel_event == events.TOOL_ERROR:
        error = _mapping(data.get("error"))
        if error.get("type") == "ToolDenied":  # never ran: a hook or an approval said no; that is no failure
            return []
        fields.update(error=str(error.get("msg") or error.get("message") or "the tool call failed"),
                      error_type=error.get("type"), is_interrupt=error.get("type") == "Cancelled")
        return [HookEvent("PostToolUseFailure", candidates, fields)]
    result = data.get("result")
    fields["tool_response"] = fields["tool_result"] = result  # tool_result: upstream's name
    if isinstance(result, dict) and result.get("success") is False:
        fields.update(error=_failed_result_text(result), is_interrupt=False)
        return [HookEvent("PostToolUseFailure", candidates, fields)]
    return [HookEvent("PostToolUse", candidates, fields)]


def _stop_failure(data: dict[str, Any]) -> HookEvent:
    error = _mapping(data.get("error"))
    kind = STOP_FAILURE_TYPES.get(str(error.get("type") or ""), "unknown")
    details = str(error.get("msg") or error.get("message") or "")
    return HookEvent("StopFailure", (kind,), {
        "error": kind, "error_details": details, "error_message": details, "error_class": error.get("type"),
        "status_code": data.get("status_code"), "provider": data.get("provider"), "model": data.get("model"),
        "last_assistant_message": ""})


def _subagent_event(kernel_event: str, data: dict[str, Any]) -> HookEvent:
    agent_type = str(data.get("agent") or "")
    fields: dict[str, Any] = {"agent_id": data.get("sub_session_id"), "agent_type": agent_type}
    if kernel_event == AGENT_COMPLETED:
        fields.update(stop_hook_active=data.get("stop_hook_active") is True,
                      last_assistant_message=str(data.get("response") or ""),
                      status=data.get("status"), success=data.get("success"), error=data.get("error"))
        return HookEvent("SubagentStop", (agent_type,), fields)
    fields.update(prompt=str(data.get("instruction") or ""), resumed=kernel_event == AGENT_RESUMED)
    return HookEvent("SubagentStart", (agent_type,), fields)


def _notification(kernel_event: str, data: dict[str, Any]) -> HookEvent:
    if kernel_event == events.APPROVAL_REQUIRED:
        tool_name = str(data.get("tool_name") or "a tool")
        return HookEvent("Notification", ("permission_prompt",), {
            "notification_type": "permission_prompt", "tool_name": tool_name,
            "message": f"amplifier needs your permission to use {tool_name}"})
    kind = str(data.get("notification_type") or data.get("level") or "info")
    return HookEvent("Notification", (kind,), {"notification_type": kind, "message": str(data.get("message") or "")})


def idle_notification() -> HookEvent:
    """Notification ``idle_prompt``: a turn ended and nobody has sent the next prompt for a while."""
    return HookEvent("Notification", ("idle_prompt",), {"notification_type": "idle_prompt", "message": IDLE_MESSAGE})


def hook_events_for(kernel_event: str, data: dict[str, Any], end_reason: str | None = None) -> list[HookEvent]:
    """The hook events ``kernel_event`` runs, in order. ``end_reason``: why the session ends (SessionEnd)."""
    names = KERNEL_EVENTS.get(kernel_event)
    if names is None:
        return []
    if kernel_event in (events.TOOL_PRE, events.TOOL_POST, events.TOOL_ERROR):
        return _tool_events(kernel_event, data)
    if kernel_event == events.APPROVAL_REQUIRED:
        candidates, fields = _tool_fields(data)
        fields.update(permission_suggestions=[], risk_level=data.get("risk_level"), reason=data.get("reason"))
        return [HookEvent("PermissionRequest", candidates, fields), _notification(kernel_event, data)]
    name = names[0]
    if name == "UserPromptSubmit":
        return [HookEvent(name, (), {"prompt": data.get("prompt", "")})]
    if name == "Stop":
        return [HookEvent(name, (), {"stop_hook_active": False, "response": data.get("response", ""),
                                     "last_assistant_message": data.get("response", ""), "status": data.get("status")})]
    if name == "StopFailure":
        return [_stop_failure(data)]
    if name in ("SubagentStart", "SubagentStop"):
        return [_subagent_event(kernel_event, data)]
    if name == "SessionStart":
        source = "resume" if kernel_event == events.SESSION_RESUME else "startup"
        return [HookEvent(name, (source,), {"source": source, "trigger": source})]  # trigger: upstream's name
    if name == "SessionEnd":
        reason = end_reason if end_reason in SESSION_END_REASONS else "other"
        return [HookEvent(name, (reason,), {"reason": reason, "status": data.get("status")})]
    if name in ("PreCompact", "PostCompact"):
        trigger = "manual" if data.get("trigger") == "manual" else "auto"
        compaction: dict[str, Any] = {"trigger": trigger, **{key: data[key] for key in (
            "message_count", "token_count", "budget", "messages_before", "messages_after", "tokens_before",
            "tokens_after", "messages_omitted") if key in data}}
        if name == "PreCompact":
            compaction["custom_instructions"] = str(data.get("custom_instructions") or "")
        else:
            compaction["compact_summary"] = str(data.get("summary") or "")
        return [HookEvent(name, (trigger,), compaction)]
    return [_notification(kernel_event, data)]
