"""What the user asked for on the command line, before anything heavy is imported: the REPL builds one
before its prompt appears, so this module imports nothing but the standard library."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class SessionRequest:
    profile: str | None = None
    provider: str | None = None
    model: str | None = None
    session_id: str | None = None
    resume_id: str | None = None
    parent_id: str | None = None
    agent: str | None = None
    mode: str = "normal"  # --mode / /mode: "plan" refuses every tool call that could write or run (plan_mode.py)
    max_tokens: int | None = None  # --max-tokens: the largest answer per response (set on the chosen provider)
    sandbox: str | None = None  # --sandbox: the mode for every sandboxed module of the plan (tool-bash, hook-shell)
    budget: Any = None  # sessions.budget.Budget: --max-turns/--max-total-tokens/--max-cost; narrowed when opened
    plan_overlay: Callable[[Any], None] | None = None  # adjusts the BuiltPlan before mounting (agents, --max-turns)
    cassette: Any = None  # --record / --replay: an amplifier_core.cassette.Cassette shared with sub-agents
