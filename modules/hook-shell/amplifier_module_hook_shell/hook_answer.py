"""What one hook said, read from how its process ended: exit 0 = go on (stdout may hold JSON with a decision,
changed tool input or context), exit 2 = block with stderr as the reason, anything else = a warning.

Both JSON shapes hooks print are read: the flat one (``decision``, ``reason``, ``additionalContext``,
upstream's ``contextInjection``) and ``hookSpecificOutput`` (``permissionDecision``, ``permissionDecisionReason``,
``updatedInput``, ``additionalContext``, and a PermissionRequest's ``decision: {behavior, message,
updatedInput}``); ``continue: false`` with ``stopReason`` blocks, ``systemMessage`` is shown to the user,
``suppressOutput`` keeps this module's notes about the answer off the screen. An http hook's 2xx body is read the
same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .hook_process import HookRun
from .hook_table import Hook

PLAIN_TEXT_CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart")
"""Events where plain (non-JSON) stdout of a successful hook is context for the model."""

_ALLOW = ("allow", "approve")
_BLOCK = ("deny", "block")


@dataclass
class HookAnswer:
    block: str | None = None
    """Reason the hook blocks (exit 2, ``decision: deny|block``, ``continue: false``)."""
    ask: str | None = None
    """Reason the hook wants the user asked (PreToolUse ``ask``)."""
    allow: bool = False
    """A PermissionRequest hook granted the request (``decision.behavior: allow``)."""
    suppress_output: bool = False
    updated_input: dict[str, Any] | None = None
    context: str | None = None
    notice: str | None = None
    """``systemMessage``: shown to the user."""
    warning: str | None = None


def describe(event: str, hook: Hook) -> str:
    command = " ".join(hook.label.split())
    if len(command) > 60:  # the end names the script
        command = "..." + command[-57:]
    return f"{event} hook `{command}` ({hook.source})"


def _first_lines(text: str, limit: int = 300) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _permission_answer(label: str, specific: dict[str, Any], answer: HookAnswer) -> dict[str, Any]:
    """Read a PermissionRequest's ``hookSpecificOutput.decision``; returns ``specific`` without it, so the flat
    ``decision`` reading below does not see the object."""
    decision = specific.get("decision")
    if not isinstance(decision, dict):
        return specific
    behavior = str(decision.get("behavior") or "").strip().lower()
    if behavior == "allow":
        answer.allow = True
        updated = decision.get("updatedInput")
        if isinstance(updated, dict):
            answer.updated_input = updated
        elif updated is not None:
            answer.warning = f"{label} returned updatedInput that is not a JSON object; it was ignored"
    elif behavior == "deny":
        answer.block = _text(decision.get("message")) or f"denied by the {label}"
    else:
        answer.warning = (f"{label} answered decision.behavior {behavior or None!r} (expected allow or deny); it "
                          "was ignored and you are asked")
    return {key: value for key, value in specific.items() if key != "decision"}


def _from_json(event: str, label: str, document: dict[str, Any]) -> HookAnswer:
    answer = HookAnswer(suppress_output=document.get("suppressOutput") is True)
    specific = document.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    if event == "PermissionRequest":
        specific = _permission_answer(label, specific, answer)
    reason = _text(specific.get("permissionDecisionReason")) or _text(document.get("reason"))
    decision = specific.get("permissionDecision") or document.get("decision")
    if isinstance(decision, str):
        decision = decision.strip().lower()
    if decision in _BLOCK and answer.block is None:
        answer.block = reason or f"blocked by the {label}"
    elif decision in _ALLOW and event == "PermissionRequest":
        answer.allow = True
    elif decision == "ask" and event == "PreToolUse":
        answer.ask = reason or f"the {label} asks for your approval"
    elif decision is not None and decision not in _ALLOW:
        answer.warning = (f"{label} answered an unknown decision {decision!r} (expected allow, deny or ask); "
                          "it was ignored")
    if document.get("continue") is False and answer.block is None:
        answer.block = _text(document.get("stopReason")) or reason or f"stopped by the {label}"
    updated = specific.get("updatedInput", document.get("updatedInput"))
    if updated is not None and event != "PermissionRequest":
        if event != "PreToolUse":
            answer.warning = f"{label} returned updatedInput, which only PreToolUse hooks can; it was ignored"
        elif not isinstance(updated, dict):
            answer.warning = f"{label} returned updatedInput that is not a JSON object; it was ignored"
        else:
            answer.updated_input = updated
    answer.context = (_text(specific.get("additionalContext")) or _text(document.get("additionalContext"))
                      or _text(document.get("contextInjection")))
    answer.notice = _text(document.get("systemMessage"))
    if "newContent" in document and answer.warning is None:
        answer.warning = (f"{label} returned newContent, which is not supported here; it was ignored (a PreToolUse "
                          'hook changes the call with {"hookSpecificOutput": {"updatedInput": {...}}})')
    return answer


def _json_reason(stdout: str) -> str | None:
    """The ``reason`` of a JSON answer printed before exiting 2 with nothing on stderr (upstream's examples do)."""
    try:
        document = json.loads(stdout)
    except ValueError:
        return None
    if not isinstance(document, dict):
        return None
    specific = document.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    return _text(document.get("reason")) or _text(specific.get("permissionDecisionReason"))


def read_answer(event: str, hook: Hook, run: HookRun) -> HookAnswer:
    label = describe(event, hook)
    if run.timed_out:
        return HookAnswer(warning=f"{label} timed out after {hook.timeout:g}s and was stopped")
    if run.failure is not None:
        said = _first_lines(run.stderr)
        return HookAnswer(warning=f"{label} {run.failure}" + (f": {said}" if said else ""))
    if run.exit_code == 2:
        return HookAnswer(block=_first_lines(run.stderr, 2000) or _json_reason(run.stdout)
                          or f"blocked by the {label} (exit code 2)")
    if run.exit_code != 0:
        how = f"was killed by signal {-run.exit_code}" if run.exit_code and run.exit_code < 0 else \
            f"failed with exit code {run.exit_code}"
        said = _first_lines(run.stderr)
        return HookAnswer(warning=f"{label} {how}" + (f": {said}" if said else ""))
    output = run.stdout.strip()
    if not output:
        return HookAnswer()
    if output.startswith(("{", "[")):
        try:
            document = json.loads(output)
        except json.JSONDecodeError as error:
            return HookAnswer(warning=f"{label} printed invalid JSON ({error.msg} at line {error.lineno} column "
                                      f"{error.colno}); its output was ignored")
        if not isinstance(document, dict):
            return HookAnswer(warning=f"{label} printed JSON that is not an object; its output was ignored")
        return _from_json(event, label, document)
    if event in PLAIN_TEXT_CONTEXT_EVENTS:
        return HookAnswer(context=output)
    return HookAnswer()
