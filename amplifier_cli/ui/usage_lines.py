"""What a session has used and cost, as (label, value) rows: the chat's `/cost` and ACP's `/cost` show the same."""

from __future__ import annotations

from typing import Any


def cost_lines(totals: Any) -> list[tuple[str, str]]:
    """(label, value) rows for a UsageTotals."""
    cache = f"cache reads {totals.cache_read_tokens:,} · cache writes {totals.cache_write_tokens:,}"
    known = totals.known_cost()
    if known is not None:
        cost = f"${known:.4f}"
    else:
        cost = (f"unknown: no price for {', '.join(totals.unpriced_models)} (add it under `pricing:` in the "
                "profile, USD per million tokens)")
    return [
        ("tokens in", f"{totals.input_tokens:,} ({cache})"),
        ("tokens out", f"{totals.output_tokens:,}"),
        ("requests", f"{totals.requests}" + (f" · {', '.join(totals.models)}" if totals.models else "")),
        ("cost", cost),
    ]
