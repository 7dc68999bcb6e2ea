"""Which mounted provider (and model) answers a turn: an app override, else ``default_provider``, else the
lowest ``priority``."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from amplifier_support.capability_names import ORCHESTRATOR_OVERRIDES
from amplifier_support.provider_choice import choose, mounted_candidates

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
    return mounted_candidates({"provider": provider})[0].priority


def choose_provider(
    providers: Mapping[str, Any], default_provider: str | None, configured_model: str | None, overrides: Any
) -> ProviderChoice:
    """The shared rule (amplifier_support.provider_choice) over the mounted providers; the app's overrides
    name the provider it resolved for a `/model` or `--model`."""
    if not providers:
        raise RuntimeError("No provider is mounted: add one under `providers:` in the profile or mount plan")
    overrides = overrides if isinstance(overrides, Mapping) else {}
    override_provider = overrides.get("provider")
    override_model = overrides.get("model")
    candidates = mounted_candidates(providers)
    if override_provider:
        chosen = choose(candidates, provider=str(override_provider))
        if chosen is None:
            raise ValueError(
                f"Provider '{override_provider}' (requested through the {ORCHESTRATOR_OVERRIDES} capability) is "
                f"not mounted; mounted providers: {', '.join(providers)}"
            )
        model = override_model or None
    else:
        if default_provider and choose(candidates, provider=default_provider) is None:
            logger.warning("default_provider '%s' is not mounted (mounted: %s); using the lowest priority",
                           default_provider, ", ".join(providers))
        chosen = choose(candidates, default_provider=default_provider)
        assert chosen is not None
        model = override_model or configured_model
    return ProviderChoice(name=chosen.name, provider=providers[chosen.name], model=model)
