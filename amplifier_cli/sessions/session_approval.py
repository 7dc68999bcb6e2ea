"""The front-end's approval system as every session uses it, with the session mode's rule on top: in
accept-edits mode a file edit (write_file, edit_file) that the person could have allowed for good is allowed
without asking. "Could have allowed for good" is what hooks-approval says by offering "Always allow": it never
does for a protected place (`.amplifier/`, `.git/hooks`, ...) or a request it could not judge, so those are
still asked, and refused where nobody can answer, whatever the mode."""

from __future__ import annotations

from typing import Any

from amplifier_support.approval_choices import ApprovalChoice
from amplifier_support.capability_names import SESSION_MODE

from .plan_mode import ACCEPT_EDITS
from .tool_call_context import tool_call_in_question

EDIT_TOOLS = frozenset({"write_file", "edit_file"})


class SessionApproval:
    """Wraps a front-end's ApprovalSystem; bound to its session's coordinator once the session exists."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.coordinator: Any = None

    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        if self._accepts_without_asking(options):
            return ApprovalChoice.ALLOW_ONCE.among(options) or ApprovalChoice.ALLOW_ONCE.label
        return await self._inner.request_approval(prompt, options, timeout, default)

    def _accepts_without_asking(self, options: list[str]) -> bool:
        if self.coordinator is None or self.coordinator.get_capability(SESSION_MODE) != ACCEPT_EDITS:
            return False
        call = tool_call_in_question()
        return call is not None and call.name in EDIT_TOOLS and ApprovalChoice.ALWAYS_ALLOW.among(options) is not None

    def __getattr__(self, name: str) -> Any:
        if name == "_inner":  # not set yet (copy, pickle): no recursion
            raise AttributeError(name)
        return getattr(self._inner, name)
