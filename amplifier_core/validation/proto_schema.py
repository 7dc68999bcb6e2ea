"""Checks of tool- and hook-result dicts against the value sets of upstream's wire schema (its proto enums),
for code that receives results as plain dicts (another process, a non-Python module). Each function returns
the problems found; an empty list means the dict is valid."""

from __future__ import annotations

from typing import Any

VALID_HOOK_ACTIONS = frozenset({"continue", "deny", "modify", "inject_context", "ask_user"})
VALID_CONTEXT_INJECTION_ROLES = frozenset({"system", "user", "assistant"})
VALID_APPROVAL_DEFAULTS = frozenset({"allow", "deny"})
VALID_USER_MESSAGE_LEVELS = frozenset({"info", "warning", "error"})


def validate_tool_result(data: dict) -> list[str]:
    """A tool result needs a boolean ``success``."""
    if "success" not in data:
        return ["Missing required field: 'success'"]
    if not isinstance(data["success"], bool):
        return [f"Field 'success' must be bool, got {type(data['success']).__name__}"]
    return []


def validate_hook_result(data: dict) -> list[str]:
    """A hook result's enumerated fields must hold one of their allowed values (``action`` defaults to
    ``continue``; the others may be absent)."""
    errors: list[str] = []
    _check_choice(errors, "action", data.get("action", "continue"), VALID_HOOK_ACTIONS)
    for field, allowed in (("context_injection_role", VALID_CONTEXT_INJECTION_ROLES),
                           ("user_message_level", VALID_USER_MESSAGE_LEVELS),
                           ("approval_default", VALID_APPROVAL_DEFAULTS)):
        value = data.get(field)
        if value is not None:
            _check_choice(errors, field, value, allowed)
    return errors


def _check_choice(errors: list[str], field: str, value: Any, allowed: frozenset[str]) -> None:
    if value not in allowed:
        errors.append(f"Invalid {field} '{value}': must be one of {sorted(allowed)}")
