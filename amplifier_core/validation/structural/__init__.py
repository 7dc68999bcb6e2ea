"""Structural test base classes: one test each, running the type's validator on the module under test."""

from __future__ import annotations

from .test_context import ContextStructuralTests
from .test_hook import HookStructuralTests
from .test_orchestrator import OrchestratorStructuralTests
from .test_provider import ProviderStructuralTests
from .test_tool import ToolStructuralTests

__all__ = [
    "ContextStructuralTests",
    "HookStructuralTests",
    "OrchestratorStructuralTests",
    "ProviderStructuralTests",
    "ToolStructuralTests",
]
