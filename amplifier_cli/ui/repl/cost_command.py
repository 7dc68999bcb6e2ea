"""`/cost`: what this chat has used and cost so far (sub-agents included), from the session's usage tracker
(sessions/usage.py, priced by sessions/pricing.py: the app's table under the profile's `pricing:` block)."""

from __future__ import annotations

from typing import Any

from .output import say, say_parts


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


async def cost_command(repl: Any, argument: str) -> bool:
    live = await repl.session()
    if live is None:
        return True
    say(f"This session ({live.session_id[:8]}), sub-agents included:", "title")
    for label, value in cost_lines(live.usage.session):
        say_parts(("info", f"  {label:>10}: "), (None, value))
    return True
