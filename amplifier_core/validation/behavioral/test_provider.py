"""What every provider must do once mounted (needs ``--module-config`` when it mounts only with a key)."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_core.message_models import ChatResponse, TextBlock
from amplifier_core.models import ProviderInfo


class ProviderBehaviorTests:
    @pytest.mark.asyncio
    async def test_mount_mounts_a_provider(self, provider_module: Any) -> None:
        assert provider_module is not None

    @pytest.mark.asyncio
    async def test_get_info_returns_provider_info_with_id_and_display_name(self, provider_module: Any) -> None:
        info = provider_module.get_info()
        assert isinstance(info, ProviderInfo)
        assert info.id and info.display_name

    @pytest.mark.asyncio
    async def test_list_models_returns_a_list(self, provider_module: Any) -> None:
        assert isinstance(await provider_module.list_models(), list)

    @pytest.mark.asyncio
    async def test_name_is_a_non_empty_string(self, provider_module: Any) -> None:
        assert isinstance(provider_module.name, str) and provider_module.name

    @pytest.mark.asyncio
    async def test_parse_tool_calls_on_text_response_returns_a_list(self, provider_module: Any) -> None:
        response = ChatResponse(content=[TextBlock(text="hello")])
        assert isinstance(provider_module.parse_tool_calls(response), list)


class TestProviderBehavior(ProviderBehaviorTests):
    """Collected when this file is run directly against a provider (``--module-path``)."""
