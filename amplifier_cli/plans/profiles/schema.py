"""What a profile file may contain: a (partial) mount plan plus `profile:` metadata, `exclude:` and
`instruction:`. Unknown keys are rejected with the closest valid key suggested."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from amplifier_support.sandbox_modes import SandboxMode, normalize_sandbox_value

from ...config.settings import BudgetSettings
from ..mount_plan import MountPlanSections


class ProfileMeta(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    description: str | None = None
    extends: str | None = None
    version: str | None = None  # upstream requires it; we accept and show it
    model: str | None = None  # upstream "provider/model" hint; informational


def _ids_or_all(value: Any) -> Any:
    if value is None or value == "all":
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    raise ValueError("must be 'all' or a list of module ids")


def instruction_text(value: Any) -> Any:
    """An `instruction:` (profile or agent) must be text, not a mapping or list YAML made of it."""
    if value is not None and not isinstance(value, str):
        raise ValueError("instruction must be text (use a YAML block: 'instruction: |')")
    return value


class ExcludeSection(BaseModel):
    """Drop inherited entries before this file's own are merged: `all` or a list of ids per section."""

    model_config = ConfigDict(extra="forbid")

    providers: Any = None
    tools: Any = None
    hooks: Any = None
    agents: Any = None

    @field_validator("providers", "tools", "hooks", "agents", mode="before")
    @classmethod
    def _shape(cls, value: Any) -> Any:
        return _ids_or_all(value)


class SandboxSection(BaseModel):
    """`sandbox:` of a profile: the default for every module that runs commands for the model (tool-bash,
    hook-shell); a module's own `sandbox` config keys win, `--sandbox` wins over both."""

    model_config = ConfigDict(extra="forbid")

    mode: SandboxMode | None = None
    write_roots: list[str] | None = None
    network: bool | None = None
    required: bool | None = None


class PriceEntry(BaseModel):
    """USD per million tokens for one model (cache prices default to the input price)."""

    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_read: float | None = Field(default=None, ge=0)
    cache_write: float | None = Field(default=None, ge=0)


class ProfileFile(MountPlanSections):
    profile: ProfileMeta | None = None
    exclude: ExcludeSection | None = None
    instruction: str | None = None
    # load AGENTS.md / AMPLIFIER.md from the user config dir and the project root (default true)
    project_instructions: bool | None = None
    sandbox: SandboxSection | None = None
    budget: BudgetSettings | None = None  # the same keys as settings' `budget:` (sessions/budget)
    pricing: dict[str, PriceEntry] | None = None  # model id -> price, over the app's table

    @field_validator("sandbox", mode="before")
    @classmethod
    def _sandbox_mode_shorthand(cls, value: Any) -> Any:
        # `sandbox: read-only` is {mode: read-only}; YAML reads a bare `off` as false (the modules' own rule)
        return normalize_sandbox_value(value)

    @field_validator("instruction", mode="before")
    @classmethod
    def _instruction_text(cls, value: Any) -> Any:
        return instruction_text(value)


REMOVED_UPSTREAM_KEYS = {
    "ui": "move these settings into the hooks-streaming-ui entry's config",
    "task": "move these settings into the tool-task entry's config",
}
