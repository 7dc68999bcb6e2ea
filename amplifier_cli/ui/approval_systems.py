"""The app's ApprovalSystems, answering hook ``ask_user`` requests.

One-shot runs cannot always ask anyone: with no terminal on stdin (or ``--approval deny``) every request
is denied with a message, with ``--approval allow`` every request is granted; nothing ever waits forever.
They never offer "Run once outside the sandbox": a one-shot run leaves the sandbox only with ``--sandbox off``.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Literal, TextIO

from amplifier_core.approval import ApprovalTimeoutError
from amplifier_support.approval_choices import ApprovalChoice

ApprovalMode = Literal["ask", "allow", "deny"]


def _pick(options: list[str], wanted: ApprovalChoice) -> str:
    """The option that stands for ``wanted`` as the hook spelled it, else the choice's own label."""
    return wanted.among(options) or wanted.label


class FixedApproval:
    """Answers every request the same way and tells the user on stderr what it decided."""

    asks_a_person = False  # what must never pass unasked (a protected place, an unjudged line) is refused

    def __init__(self, allow: bool, reason: str, stream: TextIO | None = None) -> None:
        self._allow = allow
        self._reason = reason
        self._stream = stream
        self.decisions: list[tuple[str, str]] = []

    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        choice = _pick(options, ApprovalChoice.ALLOW_ONCE if self._allow else ApprovalChoice.DENY)
        self.decisions.append((prompt, choice))
        stream = self._stream or sys.stderr
        verdict = "approved" if self._allow else "denied"
        stream.write(f"[approval] {verdict}: {prompt.splitlines()[0] if prompt else ''} ({self._reason})\n")
        stream.flush()
        return choice


class TerminalApproval:
    """Asks on the controlling terminal (one-shot runs with a TTY); honours the request's timeout."""

    asks_a_person = True

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream

    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        stream = self._stream or sys.stderr
        options = [option for option in options if ApprovalChoice.of(option) is not ApprovalChoice.RUN_UNCONFINED_ONCE]
        numbered = "  ".join(f"[{index}] {option}" for index, option in enumerate(options, start=1))
        stream.write(f"\n{prompt}\n{numbered}\nChoice (default {default} in {int(timeout)}s): ")
        stream.flush()
        try:
            answer = await asyncio.wait_for(asyncio.to_thread(sys.stdin.readline), timeout=timeout)
        except TimeoutError:
            raise ApprovalTimeoutError(f"no answer within {timeout}s") from None
        answer = answer.strip()
        if answer.isdigit() and 1 <= int(answer) <= len(options):
            return options[int(answer) - 1]
        for option in options:
            if answer and option.lower().startswith(answer.lower()):
                return option
        return _pick(options, ApprovalChoice.DENY)


def approval_for(mode: ApprovalMode, *, interactive: bool):
    """The approval system for a one-shot run."""
    if mode == "allow":
        return FixedApproval(True, "--approval allow")
    if mode == "deny":
        return FixedApproval(False, "--approval deny")
    if not interactive:
        return FixedApproval(False, "no terminal to ask on; rerun with --approval allow to permit")
    return TerminalApproval()
