"""Approval requests inside the chat: the request (tool, arguments, risk — as the hook wrote it) and single-key
choices; the timeout and its default are honoured. "Always allow" asks hooks-approval for a rule
(capability `approval.remember`) and saves it in the project's local settings under `approval.rules`.
"Run once outside the sandbox" (offered by hooks-approval while the shell tool is confined) hands the command to
the tool as a one-shot grant (capability `approval.run_unconfined`) and answers "Allow once": the chat is the
only place a person can make that choice; one-shot runs never offer it.

Ctrl-C at the question denies and stops the turn gracefully, like Ctrl-C anywhere else in a turn. The
question leaves SIGINT alone (handle_sigint=False): prompt-toolkit would otherwise remove the turn's
Ctrl-C handler when the question closes, and Ctrl-C would do nothing for the rest of the turn."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

from amplifier_core.approval import ApprovalTimeoutError
from amplifier_support.approval_choices import ApprovalChoice
from amplifier_support.capability_names import APPROVAL_RUN_UNCONFINED

from ...config.paths import AmplifierPaths
from ...sessions.approval_memory import remember_answer
from .output import say, say_parts


class ReplApproval:
    """The app's ApprovalSystem while the chat runs (only ever asked during a turn, when no prompt is up)."""

    asks_a_person = True

    def __init__(self, paths: AmplifierPaths) -> None:
        self.paths = paths
        self.coordinator: Any = None  # set once the session is open (for approval.remember)
        self._lock = asyncio.Lock()
        self._interrupted = False
        self.choose: Callable[[list[str]], Any] = functools.partial(choose_option, on_interrupt=self._interrupt)

    def _interrupt(self) -> None:
        self._interrupted = True

    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        async with self._lock:  # parallel tool calls: one question at a time
            say()
            say("Approval needed", "bold ansiyellow")
            for line in prompt.splitlines():
                say(f"  {line}")
            keys = "  ".join(f"[{index}] {option}" for index, option in enumerate(options, start=1))
            say_parts((None, f"  {keys}"), ("dim", f"   (no answer in {int(timeout)}s: {default})"))
            self._interrupted = False
            try:
                choice = await asyncio.wait_for(self.choose(options), timeout=timeout)
            except TimeoutError:
                say(f"  no answer within {int(timeout)}s: {default}", "warning")
                raise ApprovalTimeoutError(f"no answer within {timeout}s") from None
            say(f"  → {choice}", "dim")
            if self._interrupted and self.coordinator is not None:
                say("  Stopping the turn (Ctrl-C).", "warning")
                await self.coordinator.request_cancel(immediate=False)
            picked = ApprovalChoice.of(choice)
            if picked is ApprovalChoice.ALWAYS_ALLOW:
                self._remember(prompt)
            if picked is ApprovalChoice.RUN_UNCONFINED_ONCE:  # the kernel knows no such answer: it is allowed once
                self._run_unconfined(prompt)
                return ApprovalChoice.ALLOW_ONCE.among(options) or ApprovalChoice.ALLOW_ONCE.label
            return choice

    async def ask_form(self, server: str, message: str, schema: dict[str, Any]) -> dict[str, Any] | None:
        """An MCP server's elicitation form (capability `mcp.elicit`), one question at a time like approvals."""
        from ..working_pause import indicator_paused
        from .elicitation import ask_form

        async with self._lock:
            with indicator_paused(self.coordinator):
                return await ask_form(server, message, schema)

    def _run_unconfined(self, prompt: str) -> None:
        grant = self.coordinator.get_capability(APPROVAL_RUN_UNCONFINED) if self.coordinator else None
        if callable(grant) and grant(prompt):
            say("  runs once outside the sandbox", "warning")
        else:
            say("  (the shell tool takes no grant: it runs inside the sandbox)", "dim")

    def _remember(self, prompt: str) -> None:
        remembered = remember_answer(self.coordinator, self.paths, prompt)
        if remembered.note:
            say(f"  {remembered.note}", "warning" if remembered.failed else "dim")


async def choose_option(options: list[str], on_interrupt: Callable[[], None] | None = None) -> str:
    """One key picks: 1..N, y (the first allow option), n/d (deny); Ctrl-C / Ctrl-D deny (Ctrl-C also
    calls ``on_interrupt``)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.patch_stdout import patch_stdout

    deny = ApprovalChoice.DENY.among(options) or options[-1]
    allow = ApprovalChoice.ALLOW_ONCE.among(options) or options[0]
    picks = {str(index): option for index, option in enumerate(options[:9], start=1)}
    picks.update({"y": allow, "n": deny, "d": deny})
    bindings = KeyBindings()

    def picker(option: str) -> Callable[[Any], None]:
        def pick(event: Any) -> None:
            event.app.exit(result=option)

        return pick

    for key, option in picks.items():
        bindings.add(key, eager=True)(picker(option))
    bindings.add("c-d", eager=True)(picker(deny))

    @bindings.add("c-c", eager=True)
    def _interrupt(event: Any) -> None:
        if on_interrupt is not None:
            on_interrupt()
        event.app.exit(result=deny)

    for key in ("<any>", "enter"):
        bindings.add(key)(lambda event: None)
    session: PromptSession[str] = PromptSession(key_bindings=bindings)
    with patch_stdout(raw=True):  # output of tools running meanwhile lands above the question
        return await session.prompt_async([("bold", f"  choose 1-{min(len(options), 9)}: ")],
                                          handle_sigint=False)
