"""Approvals in the editor: the kernel's approval question becomes `session/request_permission`, about the tool
call the question concerns (sessions/tool_call_context.py), with ACP's four kinds of answer.

"Allow always" and "Reject always" are saved as the chat saves "Always allow" (sessions/approval_memory.py: a
rule for this project in the user's config dir); they are offered only where hooks-approval offers "Always
allow" (never for a protected place or a request it could not judge). Saved rules and `--approval` decide
before anyone is asked (hooks-approval, the app's fixed approval systems). "Run once outside the sandbox" is
never offered here. A question the editor answers `cancelled` (it does for pending ones after
`session/cancel`) is a denial."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from amplifier_core.approval import ApprovalTimeoutError
from amplifier_support.approval_choices import ApprovalChoice

from ...sessions.approval_memory import remember_answer
from ...sessions.tool_call_context import tool_call_in_question

if TYPE_CHECKING:
    from .session import AcpSession

KIND_OF = {ApprovalChoice.ALLOW_ONCE: "allow_once", ApprovalChoice.ALWAYS_ALLOW: "allow_always",
           ApprovalChoice.DENY: "reject_once"}
REJECT_ALWAYS = "Always deny"


def _kind(label: str) -> str | None:
    choice = ApprovalChoice.of(label)
    if choice is ApprovalChoice.RUN_UNCONFINED_ONCE:
        return None
    if choice is not None:
        return KIND_OF[choice]
    return "allow_once" if "allow" in label.lower() else "reject_once"  # another hook's own wording


class EditorApproval:
    """The ApprovalSystem of one ACP session."""

    asks_a_person = True  # the person at the editor

    def __init__(self) -> None:
        self.session: AcpSession | None = None  # bound once the session is open
        self._asked = 0

    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        from acp.schema import PermissionOption

        session = self.session
        if session is None:
            raise ApprovalTimeoutError("no editor session to ask")
        offered = [(label, kind) for label in options if (kind := _kind(label)) is not None]
        if ApprovalChoice.ALWAYS_ALLOW.among(options) is not None:
            offered.append((REJECT_ALWAYS, "reject_always"))
        by_id = {str(index): (label, kind) for index, (label, kind) in enumerate(offered)}
        call = tool_call_in_question()
        if call is not None and call.call_id:
            call_id = call.call_id
            await session.show_call(call_id, call.name, call.arguments)  # a sub-agent's call: not shown yet
        else:  # a question outside a tool call (a hook on the prompt): shown as a call of its own
            self._asked += 1
            call_id = f"approval-{self._asked}"
            await session.show_question(call_id, prompt)
        try:
            response = await asyncio.wait_for(session.ask_permission(
                call_id, prompt, [PermissionOption(option_id=key, name=label, kind=kind)
                                  for key, (label, kind) in by_id.items()]), timeout=timeout)
        except TimeoutError:
            raise ApprovalTimeoutError(f"no answer within {timeout}s") from None
        outcome = response.outcome
        picked = by_id.get(getattr(outcome, "option_id", "")) if outcome.outcome == "selected" else None
        deny = ApprovalChoice.DENY.among(options) or ApprovalChoice.DENY.label
        if picked is None:
            return deny
        label, kind = picked
        if kind in ("allow_always", "reject_always"):
            remember_answer(session.live.coordinator, session.live.paths, prompt,
                            "allow" if kind == "allow_always" else "deny")
        if kind == "reject_always":
            return deny
        if kind.startswith("allow"):
            await session.mark_running(call_id)
        return label
