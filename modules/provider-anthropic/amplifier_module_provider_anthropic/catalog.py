"""What this provider knows about Claude models: context window, output ceiling and list price.

Lookups go by longest id prefix, so dated ids (``claude-sonnet-4-5-20250929``) find their family. An unknown
model gets conservative limits and no price: cost is then reported as unknown (None), never as 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

MILLION = Decimal(1_000_000)


@dataclass(frozen=True)
class ModelSpec:
    id: str
    display_name: str
    context_window: int
    max_output_tokens: int
    input_price: Decimal | None  # USD per million fresh input tokens
    output_price: Decimal | None  # USD per million output tokens

    @property
    def cache_write_price(self) -> Decimal | None:
        return None if self.input_price is None else self.input_price * Decimal("1.25")

    @property
    def cache_read_price(self) -> Decimal | None:
        return None if self.input_price is None else self.input_price * Decimal("0.1")


def _spec(model_id: str, name: str, output: int, input_price: str, output_price: str) -> ModelSpec:
    return ModelSpec(model_id, name, 200_000, output, Decimal(input_price), Decimal(output_price))


KNOWN_MODELS: tuple[ModelSpec, ...] = (
    _spec("claude-opus-4-6", "Claude Opus 4.6", 128_000, "5", "25"),
    _spec("claude-sonnet-4-6", "Claude Sonnet 4.6", 64_000, "3", "15"),
    _spec("claude-opus-4-5", "Claude Opus 4.5", 64_000, "5", "25"),
    _spec("claude-opus-4-1", "Claude Opus 4.1", 32_000, "15", "75"),
    _spec("claude-opus-4", "Claude Opus 4", 32_000, "15", "75"),
    _spec("claude-sonnet-4-5", "Claude Sonnet 4.5", 64_000, "3", "15"),
    _spec("claude-sonnet-4", "Claude Sonnet 4", 64_000, "3", "15"),
    _spec("claude-haiku-4-5", "Claude Haiku 4.5", 64_000, "1", "5"),
    _spec("claude-3-7-sonnet", "Claude Sonnet 3.7", 64_000, "3", "15"),
    _spec("claude-3-5-haiku", "Claude Haiku 3.5", 8_192, "0.8", "4"),
)

# Models that reject manual thinking budgets and take ``{"type": "adaptive"}`` instead.
ADAPTIVE_THINKING_PREFIXES = ("claude-opus-4-6", "claude-opus-4-7", "claude-opus-4-8", "claude-mythos",
                              "claude-sonnet-5", "claude-opus-5", "claude-haiku-5", "claude-fable-5")

_UNKNOWN_CONTEXT_WINDOW = 200_000
_UNKNOWN_MAX_OUTPUT = 8_192


def find_model(model_id: str) -> ModelSpec | None:
    """The spec whose id is the longest prefix of ``model_id``, or None."""
    matches = [spec for spec in KNOWN_MODELS if model_id == spec.id or model_id.startswith(spec.id + "-")]
    return max(matches, key=lambda spec: len(spec.id)) if matches else None


def uses_adaptive_thinking(model_id: str) -> bool:
    return model_id.startswith(ADAPTIVE_THINKING_PREFIXES)


def model_limits(model_id: str) -> tuple[int, int]:
    """(context_window, max_output_tokens) for ``model_id``; conservative values when unknown."""
    spec = find_model(model_id)
    if spec is None:
        return _UNKNOWN_CONTEXT_WINDOW, _UNKNOWN_MAX_OUTPUT
    return spec.context_window, spec.max_output_tokens


def compute_cost(
    model_id: str, *, fresh_input: int, output: int, cache_read: int = 0, cache_write: int = 0
) -> Decimal | None:
    """USD cost of one response at list price, or None when the model's price is unknown."""
    spec = find_model(model_id)
    if spec is None or spec.input_price is None or spec.output_price is None:
        return None
    total = (
        fresh_input * spec.input_price
        + output * spec.output_price
        + cache_read * (spec.cache_read_price or Decimal(0))
        + cache_write * (spec.cache_write_price or Decimal(0))
    )
    return (total / MILLION).quantize(Decimal("0.000001"))
