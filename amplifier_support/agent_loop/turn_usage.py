"""Token usage summed over the provider calls of one turn."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from amplifier_core.message_models import Usage


class TurnUsage:
    def __init__(self) -> None:
        self.input_tokens = 0
        self.output_tokens = 0
        self.cache_read_tokens = 0
        self.cache_write_tokens = 0
        self.cost_usd: Decimal | None = None
        self.calls = 0

    def add(self, usage: Usage | None) -> None:
        self.calls += 1
        if usage is None:
            return
        self.input_tokens += usage.input_tokens or 0
        self.output_tokens += usage.output_tokens or 0
        self.cache_read_tokens += usage.cache_read_tokens or 0
        self.cache_write_tokens += usage.cache_write_tokens or 0
        if usage.cost_usd is not None:
            self.cost_usd = (self.cost_usd or Decimal(0)) + usage.cost_usd

    def to_dict(self) -> dict[str, Any]:
        """``cost_usd`` is a decimal string, present only when some call reported a cost (absent = unknown)."""
        data: dict[str, Any] = {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                                "total_tokens": self.input_tokens + self.output_tokens}
        if self.cache_read_tokens:
            data["cache_read_tokens"] = self.cache_read_tokens
        if self.cache_write_tokens:
            data["cache_write_tokens"] = self.cache_write_tokens
        if self.cost_usd is not None:
            data["cost_usd"] = str(self.cost_usd)
        return data
