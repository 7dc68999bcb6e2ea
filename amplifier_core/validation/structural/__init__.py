"""Structural test base classes: one test each, running the type's validator on the module under test.

``check_on_session_ready`` is re-exported here as 2.0.2 does; it lives in ``validation.base`` so the validators
never import these pytest-dependent classes.
"""

from __future__ import annotations

from ..base import check_on_session_ready
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
    "check_on_session_ready",
]
