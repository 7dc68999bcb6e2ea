"""context-simple: in-memory conversation history with non-destructive, budget-driven compaction.

The manager is :class:`amplifier_support.compacting_context.SimpleContextManager` (context-persistent
subclasses it, and modules never import each other); this package mounts it.
"""

from __future__ import annotations

import logging
from typing import Any

from amplifier_core.module_config import parse_module_config
from amplifier_support.compacting_context import (
    SimpleContextConfig,
    SimpleContextManager,
    ViewPlan,
    estimate_message_tokens,
    plan_view,
    provider_budget,
    split_units,
)

__amplifier_module_type__ = "context"
__all__ = [
    "SimpleContextConfig", "SimpleContextManager", "ViewPlan", "estimate_message_tokens", "mount",
    "plan_view", "provider_budget", "split_units",
]

logger = logging.getLogger(__name__)

MODULE_ID = "context-simple"


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> None:
    """Mount a SimpleContextManager at the ``context`` mount point."""
    parsed = parse_module_config(SimpleContextConfig, config, MODULE_ID)
    manager = SimpleContextManager(parsed, hooks=getattr(coordinator, "hooks", None))
    await coordinator.mount("context", manager)
    logger.debug("context-simple mounted (max_tokens=%d)", parsed.max_tokens)
