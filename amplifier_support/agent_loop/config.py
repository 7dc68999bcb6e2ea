"""The loop's configuration, shared by loop-basic and loop-streaming (same keys, same defaults)."""

from __future__ import annotations

from pydantic import field_validator

from amplifier_core.module_config import ModuleConfig


class LoopConfig(ModuleConfig):
    """Keys of the ``orchestrator.config`` section. Unknown keys are rejected at mount time."""

    max_iterations: int = -1
    """Provider calls that may return tool calls in one turn; -1 = unlimited. When reached, one more call is
    made without tools so the model wraps up in text."""
    default_provider: str | None = None
    """Mounted provider name to use; otherwise the provider with the lowest ``priority`` (default 100)."""
    model: str | None = None
    """Model passed as ``ChatRequest.model``; None lets the provider use its default."""
    extended_thinking: bool = False
    """Passed to ``provider.complete(request, extended_thinking=True)`` when set."""
    reasoning_effort: str | None = None
    """Copied onto every ``ChatRequest.reasoning_effort`` (e.g. low, medium, high)."""
    max_output_tokens: int | None = None
    """Copied onto every ``ChatRequest.max_output_tokens`` when set."""

    @field_validator("max_iterations")
    @classmethod
    def _unlimited_or_positive(cls, value: int) -> int:
        if value == 0 or value < -1:
            raise ValueError("must be -1 (unlimited) or at least 1")
        return value
