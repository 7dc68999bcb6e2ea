"""Fixtures for provider-openai tests: the shared ones from sessionkit (a real coordinator whose provider
events are recorded, recorded backoff sleeps, whole sessions), and a factory for providers pointed at the
fake API server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from amplifier_module_provider_openai import OpenAIConfig, OpenAIProvider
from sessionkit import FAST_RETRIES, SleepRecorder
from sessionkit.fixtures import coordinator, event_log, made_providers, open_session, recorded_sleeps

from amplifier_core.coordinator import ModuleCoordinator

__all__ = ["coordinator", "event_log", "made_providers", "make_provider", "open_session", "recorded_sleeps"]


@pytest.fixture
def make_provider(fake_api: Any, coordinator: ModuleCoordinator, recorded_sleeps: SleepRecorder,
                  made_providers: list[Any]) -> Callable[..., OpenAIProvider]:
    """Build providers against the fake server with tiny retry delays (override any config key)."""

    def build(**overrides: Any) -> OpenAIProvider:
        settings = {**FAST_RETRIES, "max_retries": 2, "default_model": "gpt-5-mini", **overrides}
        provider = OpenAIProvider(OpenAIConfig(**settings), api_key="test-key", base_url=fake_api.openai_base_url,
                                  coordinator=coordinator)
        provider.retry_sleep = recorded_sleeps
        made_providers.append(provider)
        return provider

    return build
