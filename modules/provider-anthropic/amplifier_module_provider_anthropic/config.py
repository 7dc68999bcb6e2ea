"""The provider's typed configuration (parsed once in mount(); unknown keys are rejected by the base)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from amplifier_core.module_config import ModuleConfig

API_KEY_ENV = "ANTHROPIC_API_KEY"
BASE_URL_ENV = "ANTHROPIC_BASE_URL"
DEFAULT_MODEL = "claude-sonnet-4-6"

Effort = Literal["low", "medium", "high", "max"]

# Thinking budget implied by an effort level when no explicit budget is configured.
EFFORT_BUDGETS: dict[str, int] = {"low": 2048, "medium": 8192, "high": 16384, "max": 32000}
MIN_THINKING_BUDGET = 1024
# Room left for the visible answer when thinking raises max_tokens.
THINKING_ANSWER_ROOM = 4096


class ThinkingConfig(ModuleConfig):
    """Extended thinking. ``enabled`` turns it on for every request; a request's ``reasoning_effort`` (or the
    ``extended_thinking`` kwarg) turns it on per call."""

    enabled: bool = False
    budget_tokens: int | None = Field(default=None, ge=MIN_THINKING_BUDGET)
    effort: Effort | None = None


class AnthropicConfig(ModuleConfig):
    api_key: str | None = None
    base_url: str | None = None
    default_model: str = DEFAULT_MODEL
    max_tokens: int = Field(default=16384, ge=1)
    temperature: float | None = Field(default=None, ge=0.0, le=1.0)
    timeout: float = Field(default=600.0, gt=0)
    max_retries: int = Field(default=5, ge=0)
    min_retry_delay: float = Field(default=1.0, ge=0)
    max_retry_delay: float = Field(default=60.0, ge=0)
    retry_jitter: bool = True
    thinking: ThinkingConfig = Field(default_factory=ThinkingConfig)
    prompt_caching: bool = True
    priority: int = 100
    stream: bool = True
