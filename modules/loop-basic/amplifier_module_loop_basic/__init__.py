"""loop-basic: the agent loop without streaming (providers answer whole responses).

The loop itself lives in ``loop.py`` as :class:`AgentLoop`; loop-streaming builds the same class with
``stream=True`` (the one sanctioned import between bundled modules: both ship together).
"""

from __future__ import annotations

from typing import Any

from amplifier_core.module_config import parse_module_config

from .config import LoopConfig
from .loop import AgentLoop

__amplifier_module_type__ = "orchestrator"

MODULE_ID = "loop-basic"

BasicOrchestrator = AgentLoop  # upstream's class name


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> None:
    loop_config = parse_module_config(LoopConfig, config, MODULE_ID)
    await coordinator.mount("orchestrator", AgentLoop(loop_config, stream=False, name=MODULE_ID))
    return None


__all__ = ["AgentLoop", "BasicOrchestrator", "LoopConfig", "mount"]
