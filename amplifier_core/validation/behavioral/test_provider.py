"""What every provider must do once mounted, checkable offline: describe itself, name itself, parse tool
calls, and list models (a list_models that needs a server it cannot reach is "not checkable offline", not a
failure). Test names and fixtures are 2.0.2's."""

from __future__ import annotations

import asyncio
import inspect
import warnings
from typing import Any

import pytest

from amplifier_core.message_models import ChatResponse, TextBlock
from amplifier_core.models import ProviderInfo
from amplifier_core.validation.behavioral._calls import is_offline_error

LIST_MODELS_TIMEOUT = 15.0  # seconds; an unreachable server usually refuses at once


class ProviderBehaviorTests:
    """Subclass in a provider module's tests; the amplifier pytest plugin provides ``provider_module``."""

    @pytest.mark.asyncio
    async def test_mount_succeeds(self, provider_module: Any) -> None:
        assert provider_module is not None

    @pytest.mark.asyncio
    async def test_get_info_returns_valid_provider_info(self, provider_module: Any) -> None:
        info = provider_module.get_info()
        assert isinstance(info, ProviderInfo), f"get_info() must return ProviderInfo, got {type(info).__name__}"
        assert info.id and info.display_name, "ProviderInfo needs an id and a display_name"

    @pytest.mark.asyncio
    async def test_list_models_returns_list(self, provider_module: Any) -> None:
        list_models = provider_module.list_models
        assert inspect.iscoroutinefunction(list_models) or callable(list_models), "list_models must be callable"
        try:
            models = await asyncio.wait_for(list_models(), LIST_MODELS_TIMEOUT)
        except Exception as error:
            if not is_offline_error(error):
                raise
            warnings.warn(f"list_models() needs a server it cannot reach ({type(error).__name__}: {error}); "
                          "not checkable offline", stacklevel=1)
            return
        assert isinstance(models, list), f"list_models() must return a list, got {type(models).__name__}"

    @pytest.mark.asyncio
    async def test_provider_has_name_attribute(self, provider_module: Any) -> None:
        name = getattr(provider_module, "name", None)
        assert isinstance(name, str) and name, f"provider.name must be a non-empty string, got {name!r}"

    @pytest.mark.asyncio
    async def test_parse_tool_calls_returns_list(self, provider_module: Any) -> None:
        calls = provider_module.parse_tool_calls(ChatResponse(content=[TextBlock(text="Hello")]))
        assert isinstance(calls, list), f"parse_tool_calls() must return a list, got {type(calls).__name__}"


class TestProviderBehavior(ProviderBehaviorTests):
    """Collected when this file is run directly against a provider (``--module-path``)."""
