"""Running token and cost totals for a session, fed by providers' ``llm:response`` events."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from amplifier_core import HookResult


@dataclass
class UsageTotals:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    requests: int = 0
    cost_usd: Decimal | None = None
    models: list[str] = field(default_factory=list)

    def add(self, data: dict[str, Any]) -> None:
        usage = data.get("usage") or {}
        self.requests += 1
        self.input_tokens += int(usage.get("input_tokens") or 0)
        self.output_tokens += int(usage.get("output_tokens") or 0)
        self.cache_read_tokens += int(usage.get("cache_read_tokens") or 0)
        self.cache_write_tokens += int(usage.get("cache_write_tokens") or 0)
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

    def __init__(self) -> None:
        self.session = UsageTotals()
        self.turn = UsageTotals()

    def start_turn(self) -> None:
        self.turn = UsageTotals()

    async def on_llm_response(self, event: str, data: dict[str, Any]) -> HookResult:
        self.session.add(data)
        self.turn.add(data)
        return HookResult()

    def attach(self, hooks: Any) -> None:
        hooks.register("llm:response", self.on_llm_response, priority=900, name="app-usage")
