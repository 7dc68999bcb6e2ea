"""Fixtures for provider-anthropic tests: the shared ones from sessionkit (a real coordinator whose provider
events are recorded, recorded backoff sleeps, whole sessions), and a factory for providers pointed at the
fake API server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from amplifier_module_provider_anthropic import AnthropicConfig, AnthropicProvider
from sessionkit import FAST_RETRIES, SleepRecorder
from sessionkit.fixtures import coordinator, event_log, made_providers, open_session, recorded_sleeps

from amplifier_core.coordinator import ModuleCoordinator

__all__ = ["coordinator", "event_log", "made_providers", "make_provider", "open_session", "recorded_sleeps"]


@pytest.fixture
def make_provider(fake_api: Any, coordinator: ModuleCoordinator, recorded_sleeps: SleepRecorder,
                  made_providers: list[Any]) -> Callable[..., AnthropicProvider]:
    """Build providers against the fake server with tiny retry delays (override any config key)."""

    def build(**overrides: Any) -> AnthropicProvider:
        settings = {**FAST_RETRIES, "max_retries": 2, **overrides}
        provider = AnthropicProvider(AnthropicConfig(**settings), api_key="test-key", base_url=fake_api.base_url,
                                     coordinator=coordinator)
        provider.retry_sleep = recorded_sleeps
        made_providers.append(provider)
        return provider

    return build
