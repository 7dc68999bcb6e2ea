"""Module and mount-plan validation: named checks with severities, used by ``amplifier module validate``."""

from __future__ import annotations

from .base import ModuleValidator, ValidationCheck, ValidationResult, check_on_session_ready, isolated_import
from .context import ContextValidator
from .hook import HookValidator
from .mount_plan import MountPlanValidationResult, MountPlanValidator
from .orchestrator import OrchestratorValidator
from .provider import ProviderValidator
from .tool import ToolValidator

VALIDATORS: dict[str, type[ModuleValidator]] = {
    "provider": ProviderValidator,
    "tool": ToolValidator,
    "hook": HookValidator,
    "orchestrator": OrchestratorValidator,
    "context": ContextValidator,
}

__all__ = [
    "VALIDATORS",
    "ContextValidator",
    "HookValidator",
    "ModuleValidator",
    "MountPlanValidationResult",
    "MountPlanValidator",
    "OrchestratorValidator",
    "ProviderValidator",
    "ToolValidator",
    "ValidationCheck",
    "ValidationResult",
    "check_on_session_ready",
    "isolated_import",
]
