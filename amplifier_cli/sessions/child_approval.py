"""A sub-agent's approval questions: asked through its parent's approval system, one at a time across all the
children of a session (several children running side by side would otherwise ask over one another), each
question naming the agent that asks."""

from __future__ import annotations

import asyncio
from typing import Any


class ChildApproval:
    """The top-level approval system, serialised by ``lock`` and prefixed with ``[agent]``."""

    def __init__(self, inner: Any, agent: str, lock: asyncio.Lock) -> None:
        while isinstance(inner, ChildApproval):  # a grandchild asks the top-level system, under the same lock
            inner = inner.__dict__["inner"]
        self.inner: Any = inner
        self.agent = agent
        self._lock = lock

    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        async with self._lock:
            return await self.inner.request_approval(f"[agent {self.agent}] {prompt}", options, timeout, default)

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (copy, pickle): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)
