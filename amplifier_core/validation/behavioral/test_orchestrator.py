"""What every orchestrator must do: answer a prompt through the provider, survive an empty prompt and record
the turn in the context. Test names, fixtures and the execute() call are 2.0.2's (no ``coordinator=``, so a
loop must also run without one)."""

from __future__ import annotations

from typing import Any

import pytest

_CODE_ERRORS = (AttributeError, TypeError, KeyError)


class OrchestratorBehaviorTests:
    """Subclass in an orchestrator module's tests; the amplifier pytest plugin provides ``orchestrator_module``
    and ``mock_deps``."""

    async def _execute(self, orchestrator: Any, prompt: str, mock_deps: Any) -> Any:
        context, providers, tools, hooks = mock_deps
        return await orchestrator.execute(prompt=prompt, context=context, providers=providers, tools=tools,
                                          hooks=hooks)

    @pytest.mark.asyncio
    async def test_mount_succeeds(self, orchestrator_module: Any) -> None:
        assert orchestrator_module is not None

    @pytest.mark.asyncio
    async def test_orchestrator_has_execute_method(self, orchestrator_module: Any) -> None:
        assert callable(getattr(orchestrator_module, "execute", None)), "the orchestrator has no execute()"

    @pytest.mark.asyncio
    async def test_execute_returns_string(self, orchestrator_module: Any, mock_deps: Any) -> None:
        result = await self._execute(orchestrator_module, "Test prompt", mock_deps)
        assert isinstance(result, str) and result, f"execute() must return non-empty text, got {result!r}"

    @pytest.mark.asyncio
    async def test_execute_with_empty_prompt(self, orchestrator_module: Any, mock_deps: Any) -> None:
        """An empty prompt must not crash the loop with a code error; as in 2.0.2 that is all this test fails on
        (the answer's type is test_execute_returns_string's business)."""
        try:
            await self._execute(orchestrator_module, "", mock_deps)
        except _CODE_ERRORS as error:
            pytest.fail(f"execute(prompt='') crashed: {type(error).__name__}: {error}")
        except Exception:
            return  # a sensible refusal is fine

    @pytest.mark.asyncio
    async def test_orchestrator_uses_provider(self, orchestrator_module: Any, mock_deps: Any) -> None:
        _, providers, _, _ = mock_deps
        await self._execute(orchestrator_module, "Test", mock_deps)
        provider = providers.get("default")
        requests = getattr(provider, "requests", None)
        if requests is not None:  # the plugin's MockProvider records what it was asked
            assert requests, "the orchestrator never called provider.complete()"

    @pytest.mark.asyncio
    async def test_orchestrator_updates_context(self, orchestrator_module: Any, mock_deps: Any) -> None:
        context = mock_deps[0]
        await self._execute(orchestrator_module, "Test message", mock_deps)
        assert await context.get_messages(), "the orchestrator added nothing to the context"


class TestOrchestratorBehavior(OrchestratorBehaviorTests):
    """Collected when this file is run directly against an orchestrator (``--module-path``)."""
