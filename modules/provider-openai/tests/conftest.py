"""Fixtures for provider-openai tests: a real coordinator whose hook events are recorded, and a factory for
providers pointed at the fake API server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from amplifier_module_provider_openai import OpenAIConfig, OpenAIProvider
from sessionkit import SleepRecorder

from amplifier_core import events
from amplifier_core.coordinator import ModuleCoordinator

RECORDED_EVENTS = [
    events.LLM_REQUEST, events.LLM_RESPONSE, events.PROVIDER_RETRY, events.PROVIDER_TOOL_SEQUENCE_REPAIRED,
    events.CONTENT_BLOCK_START, events.CONTENT_BLOCK_DELTA, events.CONTENT_BLOCK_END, events.THINKING_DELTA,
    events.THINKING_FINAL, events.LLM_STREAM_BLOCK_START, events.LLM_STREAM_BLOCK_END, "llm:stream_aborted",
]


class EventLog:
    """Every recorded event as (name, data), in emission order."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, dict[str, Any]]] = []

    async def handler(self, event: str, data: dict[str, Any]) -> None:
        self.entries.append((event, dict(data)))

    async def emit(self, event: str, data: dict[str, Any]) -> None:
        """Stand-in for hooks.emit when an accumulator is tested without a coordinator."""
        self.entries.append((event, dict(data)))

    def names(self) -> list[str]:
        return [name for name, _ in self.entries]

    def of(self, name: str) -> list[dict[str, Any]]:
        return [data for event, data in self.entries if event == name]


@pytest.fixture
def coordinator() -> ModuleCoordinator:
    return ModuleCoordinator(session=None)


@pytest.fixture
def event_log(coordinator: ModuleCoordinator) -> EventLog:
    log = EventLog()
    for name in RECORDED_EVENTS:
        coordinator.hooks.register(name, log.handler, name="test-event-log")
    return log


@pytest.fixture
def recorded_sleeps() -> SleepRecorder:
    """Backoff delays of the providers make_provider builds, recorded instead of waited out."""
    return SleepRecorder()


@pytest.fixture
async def make_provider(
    fake_api: Any, coordinator: ModuleCoordinator, recorded_sleeps: SleepRecorder
) -> AsyncIterator[Callable[..., OpenAIProvider]]:
    """Build providers against the fake server with tiny retry delays (override any config key)."""
    made: list[OpenAIProvider] = []

    def build(**overrides: Any) -> OpenAIProvider:
        settings = {"min_retry_delay": 0.001, "max_retry_delay": 0.01, "retry_jitter": False, "max_retries": 2,
                    "default_model": "gpt-5-mini", **overrides}
        provider = OpenAIProvider(OpenAIConfig(**settings), api_key="test-key", base_url=fake_api.openai_base_url,
                                  coordinator=coordinator)
        provider.retry_sleep = recorded_sleeps
        made.append(provider)
        return provider

    yield build
    for provider in made:
        await provider.close()
