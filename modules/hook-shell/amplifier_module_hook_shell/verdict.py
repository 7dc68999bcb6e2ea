"""The answers of the hooks one event ran, turned into one kernel ``HookResult``.

Precedence follows the kernel's: block (deny) > ask (ask_user) > changed input (modify) > context
(inject_context). Warnings and ``systemMessage`` texts are returned beside the result for the caller to show: the
hook registry drops ``user_message`` of continue and modify results. Blocking means what the event allows:
PreToolUse, PermissionRequest and UserPromptSubmit are denied; SubagentStop answers deny (the task tool sends the
sub-agent back to work with the reason); for PostToolUse, PostToolUseFailure (the tool already ran) and Stop (the
turn is over) the reason is given to the model as context instead. A PermissionRequest hook that allows answers
``modify`` with ``decision: allow`` in the data (``amplifier_support.approval_choices.APPROVAL_DECISION_FIELD``),
which hooks-approval reads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from amplifier_core.models import HookResult, json_default
from amplifier_support.approval_choices import APPROVAL_DECISION_FIELD

from .hook_answer import HookAnswer

MAX_CONTEXT_CHARS = 10_000

DENYING_EVENTS = ("PreToolUse", "PermissionRequest", "UserPromptSubmit", "SubagentStop")
FEEDBACK_EVENTS = ("PostToolUse", "PostToolUseFailure", "Stop")
"""Events whose block reason goes to the model as context."""
CONTEXT_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SessionStart",
                  "SubagentStart", "SubagentStop")


def _capped(text: str) -> str:
    if len(text) <= MAX_CONTEXT_CHARS:
        return text
    return text[:MAX_CONTEXT_CHARS] + f"\n[... {len(text) - MAX_CONTEXT_CHARS} characters of hook output cut]"


def _ask_prompt(reason: str, data: dict[str, Any]) -> str:
    tool_input = json.dumps(data.get("tool_input") or {}, default=json_default, ensure_ascii=False)
    if len(tool_input) > 500:
        tool_input = tool_input[:497] + "..."
    return f"A shell hook asks before this tool call: {reason}\nTool: {data.get('tool_name')}\nInput: {tool_input}"


@dataclass
class Verdict:
    result: HookResult
    messages: list[str] = field(default_factory=list)
    warned: bool = False
    """True when a message is a warning (a hook failed, timed out, blocked where it cannot...)."""


def combine(event: str, answers: list[HookAnswer], data: dict[str, Any]) -> Verdict:
    messages: list[str] = []
    warned = False
    contexts: list[str] = []
    block = ask = None
    allowed = False
    updated: dict[str, Any] | None = None
    suppressed = any(answer.suppress_output for answer in answers)
    for answer in answers:
        if answer.warning:
            messages.append(answer.warning)
            warned = True
        if answer.notice and not answer.suppress_output:
            messages.append(answer.notice)
        allowed = allowed or answer.allow
        if answer.context and event in CONTEXT_EVENTS:
            contexts.append(answer.context)
        elif answer.context:
            messages.append(f"{event} hooks cannot add context; ignored: {answer.context[:200]}")
            warned = True
        if answer.block and block is None:
            block = answer.block
        if answer.ask and ask is None:
            ask = answer.ask
        if answer.updated_input is not None:
            updated = answer.updated_input
    if block is not None and event in FEEDBACK_EVENTS:
        contexts.append(f"{event} hook feedback: {block}")
        if not suppressed:
            messages.append(f"{event} hook blocked: {block}" + (" (the model sees this at its next request)"
                                                               if event == "Stop" else ""))
            warned = True
        block = None
    elif block is not None and event not in DENYING_EVENTS:
        messages.append(f"{event} hooks cannot block; exit code 2 / block ignored: {block}")
        warned = True
        block = None
    if block is not None:
        return Verdict(HookResult(action="deny", reason=block, suppress_output=suppressed), messages, warned)
    if allowed and event == "PermissionRequest":
        decided = {**data, APPROVAL_DECISION_FIELD: "allow"}
        if updated is not None:
            decided["tool_input"] = updated
        return Verdict(HookResult(action="modify", data=decided, suppress_output=suppressed), messages, warned)
    if ask is not None:
        return Verdict(HookResult(action="ask_user", reason=ask, approval_prompt=_ask_prompt(ask, data),
                                  approval_options=["Allow", "Deny"], approval_default="deny"), messages, warned)
    if updated is not None and event == "PreToolUse":
        if contexts:
            messages.append(f"{event} hook context was dropped: one answer cannot change the tool input and add "
                            "context at once")
            warned = True
        return Verdict(HookResult(action="modify", data={**data, "tool_input": updated}), messages, warned)
    if contexts:
        return Verdict(HookResult(action="inject_context", context_injection=_capped("\n\n".join(contexts)),
                                  suppress_output=suppressed), messages, warned)
    return Verdict(HookResult(suppress_output=suppressed), messages, warned)
