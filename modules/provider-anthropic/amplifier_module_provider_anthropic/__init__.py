"""provider-anthropic: Claude through the official ``anthropic`` SDK, streaming or not (docs/STREAMING.md).

Importing this package does not import the SDK; the provider imports it when it first talks to the API.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from amplifier_core.module_config import parse_module_config

from .config import API_KEY_ENV, BASE_URL_ENV, AnthropicConfig
from .provider import AnthropicProvider

__amplifier_module_type__ = "provider"
__all__ = ["AnthropicConfig", "AnthropicProvider", "mount"]

logger = logging.getLogger(__name__)


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], Awaitable[None]] | None:
    """Mount the provider as ``anthropic``; without an API key, mount nothing and say which variable to set."""
    settings = parse_module_config(AnthropicConfig, config, "provider-anthropic")
    api_key = settings.api_key or os.environ.get(API_KEY_ENV)
    if not api_key:
        logger.warning("provider-anthropic not mounted: no API key; set %s (or `api_key` in its config)", API_KEY_ENV)
        return None
    base_url = settings.base_url or os.environ.get(BASE_URL_ENV) or None
    provider = AnthropicProvider(settings, api_key=api_key, base_url=base_url, coordinator=coordinator)
    await coordinator.mount("providers", provider, name=provider.name)
    coordinator.register_contributor("session.cost", provider.name, provider.session_cost)

    async def cleanup() -> None:
        await provider.close()

    return cleanup
