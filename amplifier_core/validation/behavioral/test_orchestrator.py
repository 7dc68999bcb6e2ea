"""What every orchestrator must do: answer a prompt through the provider, survive an empty prompt and record
the turn in the context. Test names and fixtures are 2.0.2's; ``coordinator=`` (the coordinator the module was
mounted on) is passed when execute() accepts it, as the session does."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

_CODE_ERRORS = (AttributeError, TypeError, KeyError)


class OrchestratorBehaviorTests:
    """Subclass in an orchestrator module's tests; the amplifier pytest plugin provides ``orchestrator_module``
    and ``mock_deps``."""

    @pytest.fixture(autouse=True)
    def _mounted_on(self, coordinator: Any) -> None:
        self._coordinator = coordinator

    async def _execute(self, orchestrator: Any, prompt: str, mock_deps: Any) -> Any:
        context, providers, tools, hooks = mock_deps
        arguments: dict[str, Any] = {"prompt": prompt, "context": context, "providers": providers,
                                     "tools": tools, "hooks": hooks}
        if _accepts_keyword(orchestrator.execute, "coordinator"):
            arguments["coordinator"] = getattr(self, "_coordinator", None)
        return await orchestrator.execute(**arguments)

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
        try:
            result = await self._execute(orchestrator_module, "", mock_deps)
        except _CODE_ERRORS as error:
            pytest.fail(f"execute(prompt='') crashed: {type(error).__name__}: {error}")
        except Exception:
            return  # a sensible refusal is fine
        assert isinstance(result, str)

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


def _accepts_keyword(function: Any, keyword: str) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == keyword or p.kind is p.VAR_KEYWORD for p in parameters)


class TestOrchestratorBehavior(OrchestratorBehaviorTests):
    """Collected when this file is run directly against an orchestrator (``--module-path``)."""
