"""What a model response cost, from a price table: the app's (`pricing.json`, list prices per provider and model)
under a profile's `pricing:` block. A model priced nowhere has an unknown cost (None), never zero, so a
`--max-cost` budget can refuse to start instead of counting it as free."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from typing import Any

MILLION = Decimal(1_000_000)
PRICE_KEYS = ("input", "output", "cache_read", "cache_write")


@dataclass(frozen=True)
class ModelPrice:
    """USD per million tokens; cache reads and writes default to the input price when a table leaves them out."""

    input: Decimal
    output: Decimal
    cache_read: Decimal | None = None
    cache_write: Decimal | None = None

    def cost(self, usage: dict[str, Any]) -> Decimal:
        cache_read = int(usage.get("cache_read_tokens") or 0)
        cache_write = int(usage.get("cache_write_tokens") or 0)
        fresh = max(int(usage.get("input_tokens") or 0) - cache_read, 0)  # input_tokens is gross of cache reads
        output = int(usage.get("output_tokens") or 0)
        total = (fresh * self.input + output * self.output
                 + cache_read * (self.input if self.cache_read is None else self.cache_read)
                 + cache_write * (self.input if self.cache_write is None else self.cache_write))
        return (total / MILLION).quantize(Decimal("0.000001"))


def parse_price(entry: Any) -> ModelPrice:
    """One table entry ({input, output, cache_read?, cache_write?}); ValueError says what is wrong."""
    if not isinstance(entry, dict) or "input" not in entry or "output" not in entry:
        raise ValueError("a price needs 'input' and 'output' (USD per million tokens)")
    unknown = set(entry) - set(PRICE_KEYS)
    if unknown:
        raise ValueError(f"unknown price key(s) {', '.join(sorted(unknown))}; allowed: {', '.join(PRICE_KEYS)}")
    values: dict[str, Decimal | None] = {}
    for key in PRICE_KEYS:
        raw = entry.get(key)
        if raw is None:
            values[key] = None
            continue
        try:
            value = Decimal(str(raw))
        except InvalidOperation:
            raise ValueError(f"'{key}' must be a number, not {raw!r}") from None
        if value < 0 or not value.is_finite():
            raise ValueError(f"'{key}' must be zero or more")
        values[key] = value
    return ModelPrice(values["input"], values["output"], values["cache_read"], values["cache_write"])  # type: ignore[arg-type]


@lru_cache(maxsize=1)
def app_prices() -> dict[str, ModelPrice]:
    """model -> price from the table shipped with the app (every provider's models in one namespace)."""
    data = json.loads((Path(__file__).with_name("pricing.json")).read_text(encoding="utf-8"))
    prices: dict[str, ModelPrice] = {}
    for provider, models in data.items():
        if provider.startswith("_"):
            continue
        for model, entry in models.items():
            prices[model] = parse_price(entry)
    return prices


class Pricer:
    """Prices responses: the profile's table first, then the provider's own figure, then the app's table."""

    def __init__(self, overrides: dict[str, ModelPrice] | None = None) -> None:
        self.overrides = dict(overrides or {})

    def price_for(self, model: str | None) -> ModelPrice | None:
        if not model:
            return None
        for table in (self.overrides, app_prices()):
            found = _lookup(table, model)
            if found is not None:
                return found
        return None

    def known(self, model: str | None) -> bool:
        return self.price_for(model) is not None

    def cost(self, model: str | None, usage: dict[str, Any], reported: Any) -> Decimal | None:
        if model and _lookup(self.overrides, model) is not None:
            return _lookup(self.overrides, model).cost(usage)  # type: ignore[union-attr]
        if reported is not None:
            try:
                return Decimal(str(reported))
            except InvalidOperation:
                pass
        price = self.price_for(model)
        return price.cost(usage) if price is not None else None


def _lookup(table: dict[str, ModelPrice], model: str) -> ModelPrice | None:
    """Exact id, else the longest listed id the model starts with followed by '-' (dated snapshots)."""
    if model in table:
        return table[model]
    prefixes = [name for name in table if model.startswith(name + "-")]
    return table[max(prefixes, key=len)] if prefixes else None
