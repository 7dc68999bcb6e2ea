"""provider-openai: OpenAI models, or any OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio),
through the official ``openai`` SDK; Responses API by default, Chat Completions with ``api: chat``.

Importing this package imports neither the SDK nor the provider's code: a profile that lists this provider
without a key (the bundled `minimal` and `default` do) pays nothing for it. The SDK loads on first use.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from amplifier_core.module_config import parse_module_config

from .config import API_KEY_ENV, BASE_URL_ENV, PLACEHOLDER_KEY, OpenAIConfig

if TYPE_CHECKING:
    from .provider import OpenAIProvider

__amplifier_module_type__ = "provider"
__all__ = ["OpenAIConfig", "OpenAIProvider", "mount"]

logger = logging.getLogger(__name__)


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], Awaitable[None]] | None:
    """Mount the provider as ``openai``. Without a key it mounts only for a ``base_url`` (local servers need
    none); with neither, it mounts nothing and says in one line which variable to set."""
    settings = parse_module_config(OpenAIConfig, config, "provider-openai")
    api_key = settings.api_key or os.environ.get(API_KEY_ENV) or None
    base_url = settings.base_url or os.environ.get(BASE_URL_ENV) or None
    if not api_key and not base_url:
        logger.warning("provider-openai not mounted: no API key; set %s (or `api_key` in its config), or set "
                       "`base_url` / %s for a local OpenAI-compatible server", API_KEY_ENV, BASE_URL_ENV)
        return None
    from .provider import OpenAIProvider

    provider = OpenAIProvider(settings, api_key=api_key or PLACEHOLDER_KEY, base_url=base_url,
                              coordinator=coordinator)
    await coordinator.mount("providers", provider, name=provider.name)
    coordinator.register_contributor("session.cost", provider.name, provider.session_cost)

    async def cleanup() -> None:
        await provider.close()

    return cleanup


def __getattr__(name: str) -> Any:
    """`OpenAIProvider` stays importable from the package, loaded only when asked for."""
    if name == "OpenAIProvider":
        from .provider import OpenAIProvider

        return OpenAIProvider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
