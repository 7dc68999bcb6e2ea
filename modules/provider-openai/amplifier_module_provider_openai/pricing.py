"""Known OpenAI models: context limits and list prices, used for get_info/list_models and ``cost_usd``.

Prices are US dollars per million tokens (input, cached input, output) from OpenAI's public price list; a
model not listed here is priced as unknown (``cost_usd=None``), never as free.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from amplifier_core.message_models import Usage

_MILLION = Decimal(1_000_000)
_DATED_SNAPSHOT = re.compile(r"^-\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class ModelSpec:
    id: str
    display_name: str
    context_window: int
    max_output_tokens: int
    reasoning: bool
    input_price: Decimal | None = None
    cached_input_price: Decimal | None = None
    output_price: Decimal | None = None


def _spec(model_id: str, name: str, window: int, output: int, reasoning: bool, prices: str | None) -> ModelSpec:
    if prices is None:
        return ModelSpec(model_id, name, window, output, reasoning)
    fresh, cached, out = (Decimal(part) for part in prices.split("/"))
    return ModelSpec(model_id, name, window, output, reasoning, fresh, cached, out)


KNOWN_MODELS: tuple[ModelSpec, ...] = (
    _spec("gpt-5.1", "GPT-5.1", 400_000, 128_000, True, "1.25/0.125/10"),
    _spec("gpt-5", "GPT-5", 400_000, 128_000, True, "1.25/0.125/10"),
    _spec("gpt-5-mini", "GPT-5 mini", 400_000, 128_000, True, "0.25/0.025/2"),
    _spec("gpt-5-nano", "GPT-5 nano", 400_000, 128_000, True, "0.05/0.005/0.40"),
    _spec("gpt-4.1", "GPT-4.1", 1_047_576, 32_768, False, "2/0.50/8"),
    _spec("gpt-4.1-mini", "GPT-4.1 mini", 1_047_576, 32_768, False, "0.40/0.10/1.60"),
    _spec("gpt-4.1-nano", "GPT-4.1 nano", 1_047_576, 32_768, False, "0.10/0.025/0.40"),
    _spec("gpt-4o", "GPT-4o", 128_000, 16_384, False, "2.50/1.25/10"),
    _spec("gpt-4o-mini", "GPT-4o mini", 128_000, 16_384, False, "0.15/0.075/0.60"),
    _spec("o3", "o3", 200_000, 100_000, True, "2/0.50/8"),
    _spec("o4-mini", "o4-mini", 200_000, 100_000, True, "1.10/0.275/4.40"),
)

_BY_ID = {spec.id: spec for spec in KNOWN_MODELS}
DEFAULT_CONTEXT_WINDOW = 128_000
DEFAULT_MAX_OUTPUT = 16_384


def find_model(model: str) -> ModelSpec | None:
    """The spec of ``model`` or of the model a dated snapshot (``gpt-4o-2024-08-06``) belongs to."""
    if model in _BY_ID:
        return _BY_ID[model]
    for spec in sorted(KNOWN_MODELS, key=lambda s: len(s.id), reverse=True):
        if model.startswith(spec.id) and _DATED_SNAPSHOT.match(model[len(spec.id):]):
            return spec
    return None


def is_reasoning_model(model: str) -> bool:
    """Whether the model reasons (and so accepts ``reasoning`` and returns reasoning items)."""
    spec = find_model(model)
    if spec is not None:
        return spec.reasoning
    name = model.lower()
    return (name.startswith(("o1", "o3", "o4", "gpt-5")) and "chat" not in name) or name.startswith("gpt-oss")


def cost_usd(model: str, usage: Usage | None) -> Decimal | None:
    """The cost of one response, or None when the model's price is unknown. Cached input is billed at the
    cached rate once (input_tokens is gross); reasoning tokens are already part of output_tokens."""
    spec = find_model(model)
    if usage is None or spec is None or spec.input_price is None or spec.output_price is None:
        return None
    cached = usage.cache_read_tokens or 0
    cached_price = spec.cached_input_price if spec.cached_input_price is not None else spec.input_price
    total = ((usage.input_tokens - cached) * spec.input_price + cached * cached_price
             + usage.output_tokens * spec.output_price) / _MILLION
    return total.quantize(Decimal("0.00000001"))
