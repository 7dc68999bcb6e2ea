"""The agent turn loop that loop-basic (``stream=False``) and loop-streaming (``stream=True``) both mount.

It lives here, not in loop-basic, because bundled modules never import each other: each loop module is a
thin ``mount()`` around this one :class:`AgentLoop`, so the two behave identically apart from streaming."""

from __future__ import annotations

from .config import LoopConfig
from .loop import AgentLoop

__all__ = ["AgentLoop", "LoopConfig"]
