"""What every orchestrator must do: answer a prompt through the provider and record the turn."""

from __future__ import annotations

from typing import Any

import pytest


class OrchestratorBehaviorTests:
    @pytest.mark.asyncio
    async def test_execute_returns_non_empty_text(self, orchestrator_module: Any, mock_deps: Any,
                                                  coordinator: Any) -> None:
        context, providers, tools, hooks = mock_deps
        result = await orchestrator_module.execute(prompt="Say hello", context=context, providers=providers,
                                                   tools=tools, hooks=hooks, coordinator=coordinator)
        assert isinstance(result, str) and result

    @pytest.mark.asyncio
    async def test_empty_prompt_does_not_crash(self, orchestrator_module: Any, mock_deps: Any,
                                               coordinator: Any) -> None:
        context, providers, tools, hooks = mock_deps
        result = await orchestrator_module.execute(prompt="", context=context, providers=providers, tools=tools,
                                                   hooks=hooks, coordinator=coordinator)
        assert isinstance(result, str)

    @pytest.mark.asyncio
    async def test_execute_uses_the_provider_and_updates_the_context(self, orchestrator_module: Any,
                                                                     mock_deps: Any, coordinator: Any) -> None:
        context, providers, tools, hooks = mock_deps
        await orchestrator_module.execute(prompt="Say hello", context=context, providers=providers, tools=tools,
                                          hooks=hooks, coordinator=coordinator)
        assert providers["default"].requests, "the orchestrator never called the provider"
        assert await context.get_messages(), "the orchestrator added nothing to the context"


class TestOrchestratorBehavior(OrchestratorBehaviorTests):
    """Collected when this file is run directly against an orchestrator (``--module-path``)."""
