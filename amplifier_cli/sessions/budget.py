"""Budgets that end a run before it overspends: model calls per turn, total tokens and cost in USD.

They come from `budget:` in settings and profiles and from `--max-turns`, `--max-total-tokens` and `--max-cost`;
each only narrows (the smallest limit wins). Tokens and cost count every response of the session since it was
opened in this process, sub-agents' included (the spawner feeds their responses to the parent's tracker). When
a limit is reached the turn is cancelled gracefully: the running tool finishes, the transcript stays whole and
the session can be resumed."""

from __future__ import annotations

from dataclasses import dataclass, fields
from decimal import Decimal
from typing import Any

from ..config.money import parse_cost

BUDGET_KEYS = ("max_turns", "max_total_tokens", "max_cost")


@dataclass(frozen=True)
class Budget:
    max_turns: int | None = None
    max_total_tokens: int | None = None
    max_cost: Decimal | None = None

    @property
    def empty(self) -> bool:
        return all(getattr(self, item.name) is None for item in fields(self))

    def narrowed(self, other: Budget | None) -> Budget:
        """Each limit the smaller of the two (a budget only narrows)."""
        if other is None:
            return self
        values = {}
        for item in fields(self):
            mine, theirs = getattr(self, item.name), getattr(other, item.name)
            values[item.name] = theirs if mine is None else mine if theirs is None else min(mine, theirs)
        return Budget(**values)

    def as_dict(self) -> dict[str, Any]:
        return {"max_turns": self.max_turns, "max_total_tokens": self.max_total_tokens,
                "max_cost": str(self.max_cost) if self.max_cost is not None else None}


def parse_budget(data: Any) -> Budget:
    """A `budget:` mapping; ValueError names the key and what it must be."""
    if data is None:
        return Budget()
    if not isinstance(data, dict):
        raise ValueError("budget must be a mapping of max_turns, max_total_tokens, max_cost")
    unknown = set(data) - set(BUDGET_KEYS)
    if unknown:
        raise ValueError(f"unknown budget key(s) {', '.join(sorted(unknown))}; allowed: {', '.join(BUDGET_KEYS)}")
    values: dict[str, Any] = {}
    for key in ("max_turns", "max_total_tokens"):
        value = data.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ValueError(f"{key} must be a whole number of at least 1, not {value!r}")
        values[key] = value
    values["max_cost"] = parse_cost(data.get("max_cost"))
    return Budget(**values)


def total_tokens(usage: Any) -> int:
    """Tokens a response used: input (gross of cache reads) + cache writes + output."""
    return usage.input_tokens + usage.cache_write_tokens + usage.output_tokens


@dataclass(frozen=True)
class BudgetStop:
    """Which limit ended the run, with the figures (for the message and the JSON result)."""

    budget: str  # max_total_tokens | max_cost | max_turns
    limit: str
    used: str

    def message(self) -> str:
        name = {"max_total_tokens": "token", "max_cost": "cost", "max_turns": "turn"}.get(self.budget, self.budget)
        unit = {"max_cost": " USD", "max_turns": " model calls"}.get(self.budget, " tokens")
        flag = "--" + self.budget.replace("_", "-")
        if self.used.startswith("unknown"):
            return f"cost budget ({flag} {self.limit}): a cost is {self.used}; stopped, never counted as free"
        return f"{name} budget reached: used {self.used}{unit} of {self.limit}{unit} ({flag})"

    def as_dict(self) -> dict[str, Any]:
        return {"budget": self.budget, "limit": self.limit, "used": self.used}


def exceeded(budget: Budget, totals: Any) -> BudgetStop | None:
    """The first limit the session totals have reached, or None."""
    if budget.max_total_tokens is not None:
        used = total_tokens(totals)
        if used >= budget.max_total_tokens:
            return BudgetStop("max_total_tokens", str(budget.max_total_tokens), str(used))
    if budget.max_cost is not None and totals.cost_usd is not None and totals.cost_usd >= budget.max_cost:
        return BudgetStop("max_cost", str(budget.max_cost), str(totals.cost_usd))
    return None
