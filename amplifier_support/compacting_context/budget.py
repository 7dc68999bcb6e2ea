"""Where a request's token budget comes from: the caller, the provider's model, or the configured maximum."""

from __future__ import annotations

import inspect
import logging
from typing import Any

logger = logging.getLogger(__name__)


def _field(source: Any, key: str) -> Any:
    if isinstance(source, dict):
        return source.get(key)
    return getattr(source, key, None)


def _window_minus_output(source: Any, margin: int) -> int | None:
    context_window = _field(source, "context_window")
    max_output = _field(source, "max_output_tokens")
    if not isinstance(context_window, int) or not isinstance(max_output, int):
        return None
    budget = context_window - max_output - margin
    return budget if budget > 0 else None


async def provider_budget(provider: Any, margin: int) -> int | None:
    """``context_window - max_output_tokens - margin`` for the provider's current model, if it says.

    Asks the cheap, local sources only: ``get_model_info()`` (upstream providers offer it) and then
    ``get_info().defaults``. ``list_models()`` is not called: it may go to the network on every request.
    """
    if provider is None:
        return None
    model_info = getattr(provider, "get_model_info", None)
    if callable(model_info):
        try:
            info = model_info()
            if inspect.isawaitable(info):
                info = await info
            budget = _window_minus_output(info, margin) if info is not None else None
            if budget is not None:
                return budget
        except Exception as error:
            logger.debug("provider get_model_info() failed (%s); trying get_info()", error)
    get_info = getattr(provider, "get_info", None)
    if callable(get_info):
        try:
            defaults = _field(get_info(), "defaults") or {}
            return _window_minus_output(defaults, margin)
        except Exception as error:
            logger.debug("provider get_info() failed (%s); using the configured max_tokens", error)
    return None


async def resolve_budget(token_budget: int | None, provider: Any, max_tokens: int, max_tokens_is_cap: bool,
                         margin: int) -> int:
    """The caller's explicit budget wins; else the provider's model, capped by ``max_tokens`` when the user
    set it explicitly; else ``max_tokens``."""
    if token_budget is not None and token_budget > 0:
        return token_budget
    derived = await provider_budget(provider, margin)
    if derived is None:
        return max_tokens
    return min(derived, max_tokens) if max_tokens_is_cap else derived
