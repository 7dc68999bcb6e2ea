"""Amounts of money in settings, profiles and flags (`max_cost`): one reading, so every place accepts and
refuses the same values."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any


def parse_cost(value: Any) -> Decimal | None:
    """``value`` as a positive USD amount (None stays None); ValueError says what is wrong."""
    if value is None:
        return None
    try:
        cost = Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"max_cost must be an amount in USD, not {value!r}") from None
    if not cost.is_finite() or cost <= 0:
        raise ValueError(f"max_cost must be more than 0, not {value!r}")
    return cost
