"""loop-streaming: the agent loop with streaming on.

Providers are asked to stream (``ChatRequest.stream=True``) and emit their deltas as hook events
(docs/STREAMING.md); for a response that was not streamed the loop emits the same events itself. Tool calls
run exactly as in loop-basic. The loop is :class:`amplifier_support.agent_loop.AgentLoop`, the one loop-basic
mounts too (modules never import each other), so both loops behave identically apart from streaming.
"""

from __future__ import annotations

from typing import Any

from amplifier_core.module_config import parse_module_config
from amplifier_support.agent_loop import AgentLoop, LoopConfig

__amplifier_module_type__ = "orchestrator"

MODULE_ID = "loop-streaming"


class StreamingOrchestrator(AgentLoop):
    """AgentLoop with ``stream=True`` (upstream's class name)."""

    def __init__(self, config: LoopConfig | None = None) -> None:
        super().__init__(config, stream=True, name=MODULE_ID)


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> None:
    loop_config = parse_module_config(LoopConfig, config, MODULE_ID)
    await coordinator.mount("orchestrator", StreamingOrchestrator(loop_config))
    return None


__all__ = ["LoopConfig", "StreamingOrchestrator", "mount"]
