"""Which mounted provider (and model) answers a turn: an app override, else ``default_provider``, else the
lowest ``priority``."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from amplifier_support.capability_names import ORCHESTRATOR_OVERRIDES

logger = logging.getLogger(__name__)

"""Capability an app may register: a dict ``{"provider": name?, "model": id?}`` read at the start of each
turn, so ``/model`` can switch provider or model without remounting the orchestrator."""

DEFAULT_PRIORITY = 100


@dataclass(frozen=True)
class ProviderChoice:
    name: str
    provider: Any
    model: str | None


def provider_priority(provider: Any) -> float:
    """The provider's ``priority`` attribute, else ``config["priority"]``, else 100 (lower wins)."""
    value = getattr(provider, "priority", None)
    if value is None:
        config = getattr(provider, "config", None)
        value = config.get("priority") if isinstance(config, Mapping) else None
    try:
        return float(value) if value is not None and not isinstance(value, bool) else DEFAULT_PRIORITY
    except (TypeError, ValueError):
        return DEFAULT_PRIORITY


def _mounted_name(providers: Mapping[str, Any], wanted: str) -> str | None:
    """Accept the mount name (``anthropic``) or the module id (``provider-anthropic``)."""
    if wanted in providers:
        return wanted
    short = wanted.removeprefix("provider-")
    return short if short in providers else None


def choose_provider(
    providers: Mapping[str, Any], default_provider: str | None, configured_model: str | None, overrides: Any
) -> ProviderChoice:
    if not providers:
        raise RuntimeError("No provider is mounted: add one under `providers:` in the profile or mount plan")
    overrides = overrides if isinstance(overrides, Mapping) else {}
    override_provider = overrides.get("provider")
    override_model = overrides.get("model")
    if override_provider:
        name = _mounted_name(providers, str(override_provider))
        if name is None:
            raise ValueError(
                f"Provider '{override_provider}' (requested through the {ORCHESTRATOR_OVERRIDES} capability) is "
                f"not mounted; mounted providers: {', '.join(providers)}"
            )
        model = override_model or None
    else:
        name = _mounted_name(providers, default_provider) if default_provider else None
        if default_provider and name is None:
            logger.warning("default_provider '%s' is not mounted (mounted: %s); using the lowest priority",
                           default_provider, ", ".join(providers))
        if name is None:
            name = min(providers, key=lambda key: provider_priority(providers[key]))  # ties: first mounted
        model = override_model or configured_model
    return ProviderChoice(name=name, provider=providers[name], model=model)
