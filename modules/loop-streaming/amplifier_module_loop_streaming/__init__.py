"""loop-streaming: the agent loop with streaming on.

Providers are asked to stream (``ChatRequest.stream=True``) and emit their deltas as hook events
(docs/STREAMING.md); for a response that was not streamed the loop emits the same events itself. Tool calls
run exactly as in loop-basic. The loop is loop-basic's :class:`AgentLoop` (this package depends on
loop-basic's package, which ships in the same distribution), so both loops behave identically apart from
streaming.
"""

from __future__ import annotations

from typing import Any

from amplifier_module_loop_basic.config import LoopConfig
from amplifier_module_loop_basic.loop import AgentLoop

from amplifier_core.module_config import parse_module_config

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
