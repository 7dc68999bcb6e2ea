"""The ``sandbox:`` key as every module that runs commands reads it (tool-bash, hook-shell), so a profile,
``--sandbox`` and each module's config mean the same thing everywhere."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from amplifier_core.module_config import ModuleConfig

from .policy import SandboxPolicy


def normalize_sandbox_value(value: Any) -> Any:
    """``sandbox: read-only`` means ``{mode: read-only}``; YAML reads a bare ``off`` as false, so false (also as
    ``mode``) means off and true means the default."""
    if value is False:
        return {"mode": "off"}
    if value is True:
        return {}
    if isinstance(value, str):
        return {"mode": value}
    if isinstance(value, dict) and value.get("mode") is False:
        return {**value, "mode": "off"}
    return value


class SandboxSettings(ModuleConfig):
    """``sandbox:``: a mode string, or ``{mode, write_roots, network, required}``."""

    mode: Literal["workspace-write", "read-only", "off"] = "workspace-write"
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
