"""context-simple's history and compaction policy, shared with context-persistent (which subclasses the
manager): bundled modules never import each other, so what both mount lives here."""

from __future__ import annotations

from .budget import provider_budget
from .compaction import ViewPlan, plan_view, split_units
from .manager import SimpleContextConfig, SimpleContextManager
from .token_estimate import estimate_message_tokens

__all__ = [
    "SimpleContextConfig", "SimpleContextManager", "ViewPlan", "estimate_message_tokens", "plan_view",
    "provider_budget", "split_units",
]
