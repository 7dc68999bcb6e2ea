"""One turn of an open session, as every front-end runs it: the chat, `amplifier run` and `amplifier acp` each
call ``run_turn`` and only translate its ``TurnOutcome`` into what they show (a line, an exit code, an ACP
stopReason). How a turn ended is decided here, once: stopped at once or gracefully, a budget, a provider failure,
the model's own stop (answer cut at the token limit, a refusal, the orchestrator's call limit)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from amplifier_core import HookResult
from amplifier_support.capability_names import SESSION_SUBAGENTS

from .interrupts import TurnControl, TurnInterrupted

Ending = Literal[
    "answered",  # the model answered (see finish_reason / orchestrator_status for how)
    "interrupted",  # stopped at once (a second Ctrl-C, ACP's cancel): no answer
    "stopped",  # stopped gracefully (a first Ctrl-C while a tool ran): the answer so far
    "budget",  # a budget ended the turn (budget_stop says which)
    "budget_spent",  # not started: a session budget was already reached
    "provider_error",  # the provider failed after its retries (error)
    "replay_mismatch",  # --replay: the cassette has no answer for this request (error)
    "error",  # anything else: a bug somewhere (error)
]
REFUSAL_REASONS = frozenset({"refusal", "content_filter"})
MAX_TOKENS_REASONS = frozenset({"max_tokens", "length", "max_output_tokens"})


@dataclass
class TurnFacts:
    """What the turn's own events said about how it ended: the last response's finish reason and the
    orchestrator's status (``incomplete`` after its call limit)."""

    finish_reason: str | None = None
    orchestrator_status: str | None = None

    def reset(self) -> None:
        self.finish_reason = None
        self.orchestrator_status = None

    def attach(self, hooks: Any) -> None:
        hooks.register("provider:response", self._on_response, priority=900, name="app-turn-facts")
        hooks.register("orchestrator:complete", self._on_complete, priority=900, name="app-turn-status")

    async def _on_response(self, event: str, data: dict[str, Any]) -> HookResult:
        reason = data.get("finish_reason")
        self.finish_reason = str(reason) if reason else None
        return HookResult()

    async def _on_complete(self, event: str, data: dict[str, Any]) -> HookResult:
        status = data.get("status")
        self.orchestrator_status = str(status) if status else None
        return HookResult()


@dataclass
class TurnOutcome:
    ending: Ending
    response: str = ""
    error: BaseException | None = None
    budget_stop: Any = None  # sessions.budget.BudgetStop when a budget ended (or refused) the turn
    facts: TurnFacts = field(default_factory=TurnFacts)
    background: list[Any] = field(default_factory=list)  # subagent_hub.ChildRun: background children still running

    def background_lines(self) -> list[str]:
        """One line per background sub-agent still running at the turn's end, for a front-end to show."""
        return [f"background sub-agent '{run.agent}' ({run.session_id[:8]}) is still running after "
                f"{run.elapsed():.0f}s" + (f", in {run.current_tool}" if run.current_tool else "")
                for run in self.background]

    @property
    def cut_at_max_tokens(self) -> bool:
        return self.ending == "answered" and self.facts.finish_reason in MAX_TOKENS_REASONS

    @property
    def refused(self) -> bool:
        return self.ending == "answered" and self.facts.finish_reason in REFUSAL_REASONS

    @property
    def hit_call_limit(self) -> bool:
        """The orchestrator's `max_iterations` ended the turn (with no `--max-turns` budget to name it)."""
        return self.ending == "answered" and self.facts.orchestrator_status == "incomplete"


async def run_turn(live: Any, prompt: str, images: list[dict[str, Any]] | None = None, *,
                   control: TurnControl | None = None, sigint: bool = False) -> TurnOutcome:
    """Run one turn of ``live`` (a LiveSession) under ``control`` and say how it ended; never raises for a turn
    that failed (the outcome carries the error), so the session answers the next prompt."""
    stop = live.usage.budget_stop
    if stop is not None and stop.budget != "max_turns":  # a session budget, once reached, ends the spending
        return TurnOutcome("budget_spent", budget_stop=stop)
    control = control or TurnControl(live.coordinator)
    facts = live.turn_facts
    facts.reset()
    outcome = await _run(live, prompt, images, control, sigint, facts)
    hub = live.coordinator.get_capability(SESSION_SUBAGENTS)
    if hub is not None:
        outcome.background = [run for run in hub.running(live.session_id) if run.background]
    return outcome


async def _run(live: Any, prompt: str, images: list[dict[str, Any]] | None, control: TurnControl, sigint: bool,
               facts: TurnFacts) -> TurnOutcome:
    from amplifier_core import LLMError
    from amplifier_core.cassette import ReplayMismatch

    try:
        response = await control.run(lambda: live.execute(prompt, images), sigint=sigint)
    except TurnInterrupted:
        return TurnOutcome("interrupted", facts=facts)
    except ReplayMismatch as error:
        return TurnOutcome("replay_mismatch", error=error, facts=facts)
    except LLMError as error:
        return TurnOutcome("provider_error", error=error, facts=facts)
    except Exception as error:
        return TurnOutcome("error", error=error, facts=facts)
    if live.usage.budget_stop is not None:
        return TurnOutcome("budget", response or "", budget_stop=live.usage.budget_stop, facts=facts)
    if live.coordinator.cancellation.is_cancelled:
        return TurnOutcome("stopped", response or "", facts=facts)
    return TurnOutcome("answered", response or "", facts=facts)
