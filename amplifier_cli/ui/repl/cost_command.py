"""`/cost`: what this chat has used and cost so far (sub-agents included), from the session's usage tracker
(sessions/usage.py, priced by sessions/pricing.py: the app's table under the profile's `pricing:` block)."""

from __future__ import annotations

from typing import Any

from ..usage_lines import cost_lines
from .output import say, say_parts


async def cost_command(repl: Any, argument: str) -> bool:
    live = await repl.session()
    if live is None:
        return True
    say(f"This session ({live.session_id[:8]}), sub-agents included:", "title")
    for label, value in cost_lines(live.usage.session):
        say_parts(("info", f"  {label:>10}: "), (None, value))
    return True
