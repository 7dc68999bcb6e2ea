"""loop-basic: the agent loop without streaming (providers answer whole responses).

The loop itself is :class:`amplifier_support.agent_loop.AgentLoop`, which loop-streaming mounts with
``stream=True``: modules never import each other, so what both loops share lives in ``amplifier_support``.
"""

from __future__ import annotations

from typing import Any

from amplifier_core.module_config import parse_module_config
from amplifier_support.agent_loop import AgentLoop, LoopConfig

__amplifier_module_type__ = "orchestrator"

MODULE_ID = "loop-basic"

BasicOrchestrator = AgentLoop  # upstream's class name


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> None:
    loop_config = parse_module_config(LoopConfig, config, MODULE_ID)
    await coordinator.mount("orchestrator", AgentLoop(loop_config, stream=False, name=MODULE_ID))
    return None


__all__ = ["AgentLoop", "BasicOrchestrator", "LoopConfig", "mount"]
