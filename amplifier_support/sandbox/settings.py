"""The ``sandbox:`` key as every module that runs commands reads it (tool-bash, hook-shell), so a profile,
``--sandbox`` and each module's config mean the same thing everywhere."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from amplifier_core.module_config import ModuleConfig

from ..sandbox_modes import DEFAULT_MODE, SandboxMode, normalize_sandbox_value
from .policy import SandboxPolicy

__all__ = ["SandboxSettings", "normalize_sandbox_value"]


class SandboxSettings(ModuleConfig):
    """``sandbox:``: a mode string, or ``{mode, write_roots, network, required}``."""

    mode: SandboxMode = DEFAULT_MODE
    write_roots: list[str] = Field(default_factory=list)
    network: bool = True
    required: bool = False

    @model_validator(mode="before")
    @classmethod
    def _mode_shorthand(cls, value: Any) -> Any:
        return normalize_sandbox_value(value)

    def policy(self) -> SandboxPolicy:
        return SandboxPolicy(mode=self.mode, write_roots=tuple(self.write_roots), network=self.network,
                             required=self.required)
