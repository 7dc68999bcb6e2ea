"""Running token and cost totals for a session, fed by providers' ``llm:response`` events (the session's own
and its sub-agents'), priced by `pricing.Pricer` and checked against the session's `budget.Budget`."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from amplifier_core import HookResult

from .budget import Budget, BudgetStop, exceeded
from .pricing import Pricer


@dataclass
class UsageTotals:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    requests: int = 0
    cost_usd: Decimal | None = None  # the sum of the priced responses (budgets count it)
    models: list[str] = field(default_factory=list)
    unpriced_models: list[str] = field(default_factory=list)  # responses no table prices: the total is unknown

    def known_cost(self) -> Decimal | None:
        """The total cost, or None when any response had no price (never a partial sum shown as the cost)."""
        if self.unpriced_models:
            return None
        return self.cost_usd if self.cost_usd is not None else Decimal(0)

    def mark_unpriced(self, model: str | None) -> None:
        name = model or "?"
        if name not in self.unpriced_models:
            self.unpriced_models.append(name)

    def add(self, data: dict[str, Any], cost: Any = None) -> None:
        usage = data.get("usage") or {}
        self.requests += 1
        self.input_tokens += int(usage.get("input_tokens") or 0)
        self.output_tokens += int(usage.get("output_tokens") or 0)
        self.cache_read_tokens += int(usage.get("cache_read_tokens") or 0)
        self.cache_write_tokens += int(usage.get("cache_write_tokens") or 0)
        if cost is None:
            cost = data.get("cost_usd", usage.get("cost_usd"))
        if cost is not None:
            try:
                self.cost_usd = (self.cost_usd or Decimal(0)) + Decimal(str(cost))
            except InvalidOperation:
                pass
        model = data.get("model")
        if model and model not in self.models:
            self.models.append(model)

    def as_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "requests": self.requests,
            "cost_usd": str(self.cost_usd) if self.cost_usd is not None else None,
        }


class UsageTracker:
    """Registers on ``llm:response`` and keeps totals for the whole session and for the current turn."""

    def __init__(self, pricer: Pricer | None = None, budget: Budget | None = None) -> None:
        self.session = UsageTotals()
        self.turn = UsageTotals()
        self.pricer = pricer or Pricer()
        self.budget = budget or Budget()
        self.budget_stop: BudgetStop | None = None  # set once a limit is reached
        self.on_budget_reached: Any = None  # called once with the BudgetStop (the app cancels the turn)

    def start_turn(self) -> None:
        self.turn = UsageTotals()
        if self.budget_stop is not None and self.budget_stop.budget == "max_turns":
            self.budget_stop = None  # a per-turn limit: the next turn starts afresh

    async def on_orchestrator_complete(self, event: str, data: dict[str, Any]) -> HookResult:
        """The orchestrator ended the turn at its `max_iterations` (status `incomplete`): with --max-turns
        (or `budget.max_turns`) set that is the turn budget ending the turn."""
        if self.budget.max_turns is not None and self.budget_stop is None and data.get("status") == "incomplete":
            self.budget_stop = BudgetStop("max_turns", str(self.budget.max_turns), str(self.turn.requests))
        return HookResult()

    async def on_llm_response(self, event: str, data: dict[str, Any]) -> HookResult:
        usage = data.get("usage") or {}
        cost = self.pricer.cost(data.get("model"), usage, data.get("cost_usd", usage.get("cost_usd")))
        self.session.add(data, cost)
        self.turn.add(data, cost)
        if cost is None and usage:
            self.session.mark_unpriced(data.get("model"))
            self.turn.mark_unpriced(data.get("model"))
        if self.budget_stop is None:
            self.budget_stop = exceeded(self.budget, self.session)
            if self.budget_stop is None and self.budget.max_cost is not None and cost is None and usage:
                # e.g. a sub-agent on a model priced nowhere: its cost is unknown, never counted as zero
                self.budget_stop = BudgetStop("max_cost", str(self.budget.max_cost),
                                              f"unknown (model {data.get('model') or '?'} has no price)")
            if self.budget_stop is not None and self.on_budget_reached is not None:
                self.on_budget_reached(self.budget_stop)
        return HookResult()

    def attach(self, hooks: Any) -> None:
        hooks.register("llm:response", self.on_llm_response, priority=900, name="app-usage")
        hooks.register("orchestrator:complete", self.on_orchestrator_complete, priority=900, name="app-turn-budget")
