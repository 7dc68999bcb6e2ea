"""Modules written against amplifier-core 2.0.2's API, each mounted from its own directory, working in a real
session with the bundled loop and context: a provider retrying through ``RetryConfig(initial_delay=...)``,
a tool answering with ``ToolResult(content=...)`` and a hook answering with ``context_injections``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "upstream_2_0_2"


def plan_with_fixture_modules(workshop: Any) -> dict[str, Any]:
    for module_id in ("provider-flaky", "tool-snapshot", "hooks-reminder"):
        workshop.resolver.paths[module_id] = FIXTURES / module_id
    return {
        "session": {"orchestrator": "loop-basic", "context": "context-simple"},
        "providers": [{"module": "provider-flaky", "config": {"replies": [
            {"tool": "snapshot", "id": "call-1", "arguments": {"label": "home"}},
            {"text": "done"},
        ]}}],
        "tools": [{"module": "tool-snapshot"}],
        "hooks": [{"module": "hooks-reminder", "config": {"reminder": "Check the image before answering."}}],
    }


def as_text(messages: list[Any]) -> list[tuple[str, str]]:
    out = []
    for message in messages:
        dumped = message.model_dump() if hasattr(message, "model_dump") else dict(message)
        content = dumped.get("content")
        out.append((dumped["role"], content if isinstance(content, str) else json.dumps(content)))
    return out


async def test_upstream_style_provider_tool_and_hook_complete_a_turn(session_factory, workshop) -> None:
    session = session_factory(plan_with_fixture_modules(workshop))
    retries: list[dict[str, Any]] = []

    async def on_retry(event: str, data: dict[str, Any]) -> None:
        retries.append(data)

    session.coordinator.hooks.register("provider:retry", on_retry, name="test-retries")
    await session.initialize()
    assert session.failed_modules == []
    assert await session.execute("Take a snapshot of the home screen") == "done"

    provider = session.coordinator.get_capability("test.flaky_provider")
    # RetryConfig(initial_delay=0.0, backoff_factor=2.0, jitter=False) drove the retry of the 429
    assert provider.retries == [(1, 0.0, "RateLimitError")] and retries[0]["attempt"] == 1
    assert len(provider.requests) == 2

    second_request = as_text(provider.requests[1].messages)
    tool_results = [text for role, text in second_request if role == "tool"]
    assert tool_results and "screen 'home' shows a single pixel" in tool_results[0]
    assert "[image: image/png]" in tool_results[0]

    # both injections of the one hook result reach the next request, in order, after the tool result
    texts = [text for _, text in second_request]
    reminder = texts.index("Check the image before answering.")
    assert texts[reminder + 1] == "(snapshot finished)"
    assert reminder > texts.index(tool_results[0])
    await session.cleanup()


async def test_tool_schema_and_provider_pricing_are_visible_as_2_0_2_declares_them(session_factory, workshop) -> None:
    session = session_factory(plan_with_fixture_modules(workshop))
    await session.initialize()
    tool = session.coordinator.get("tools", "snapshot")
    assert tool.input_schema["required"] == ["label"]
    models = await session.coordinator.get("providers", "flaky").list_models()
    assert models[0].pricing.input_per_million == 1.0 and models[0].pricing.currency == "USD"
    await session.cleanup()
