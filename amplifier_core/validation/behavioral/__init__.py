"""Behavioural test base classes: subclass one in a module's test suite (the plugin provides the fixtures),
or let ``amplifier module validate --behavioral`` run these files with ``--module-path``."""

from __future__ import annotations

from .test_context import ContextBehaviorTests
from .test_hook import HookBehaviorTests
from .test_orchestrator import OrchestratorBehaviorTests
from .test_provider import ProviderBehaviorTests
from .test_tool import ToolBehaviorTests

__all__ = [
    "ContextBehaviorTests",
    "HookBehaviorTests",
    "OrchestratorBehaviorTests",
    "ProviderBehaviorTests",
    "ToolBehaviorTests",
]
