"""mount(): config parsing, the missing-key path, base URL precedence, lazy SDK import, kernel validation."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest
from amplifier_module_provider_anthropic import mount
from fakeapi import Turn

from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.message_models import response_text
from amplifier_core.module_config import ModuleConfigError

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "amplifier_module_provider_anthropic"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


async def test_without_a_key_mount_returns_none_and_logs_one_line_naming_the_variable(caplog):
    coordinator = ModuleCoordinator(session=None)
    with caplog.at_level(logging.DEBUG, logger="amplifier_module_provider_anthropic"):
        result = await mount(coordinator, {})
    assert result is None
    assert coordinator.get("providers") == {}
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 1
    assert "ANTHROPIC_API_KEY" in lines[0] and "\n" not in lines[0]


async def test_key_from_the_environment_mounts_the_provider_as_anthropic(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
    coordinator = ModuleCoordinator(session=None)
    cleanup = await mount(coordinator, {})
    provider = coordinator.get("providers", "anthropic")
    assert provider is not None and provider.name == "anthropic"
    assert provider.priority == 100
    await cleanup()


async def test_unknown_config_key_is_rejected_with_the_closest_valid_key():
    with pytest.raises(ModuleConfigError, match="did you mean 'max_tokens'"):
        await mount(ModuleCoordinator(session=None), {"api_key": "k", "max_token": 5})


async def test_unknown_thinking_key_is_rejected():
    with pytest.raises(ModuleConfigError, match="budget"):
        await mount(ModuleCoordinator(session=None), {"api_key": "k", "thinking": {"budget": 5000}})


async def test_config_base_url_is_used_for_requests(fake_api):
    fake_api.add(Turn(text="via config"))
    coordinator = ModuleCoordinator(session=None)
    cleanup = await mount(coordinator, {"api_key": "k", "base_url": fake_api.base_url})
    from amplifier_core import ChatRequest, Message

    response = await coordinator.get("providers", "anthropic").complete(
        ChatRequest(messages=[Message(role="user", content="hi")]))
    await cleanup()
    assert response_text(response) == "via config"
    assert fake_api.requests[-1].headers["authorization"].endswith("k")


async def test_anthropic_base_url_environment_variable_is_honoured(fake_api, monkeypatch):
    fake_api.add(Turn(text="via env"))
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.base_url)
    coordinator = ModuleCoordinator(session=None)
    cleanup = await mount(coordinator, {"api_key": "k"})
    from amplifier_core import ChatRequest, Message

    provider = coordinator.get("providers", "anthropic")
    response = await provider.complete(ChatRequest(messages=[Message(role="user", content="hi")]))
    await cleanup()
    assert provider.base_url == fake_api.base_url
    assert response_text(response) == "via env"


async def test_config_base_url_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/env")
    coordinator = ModuleCoordinator(session=None)
    await mount(coordinator, {"api_key": "k", "base_url": "http://127.0.0.1:9/config"})
    assert coordinator.get("providers", "anthropic").base_url == "http://127.0.0.1:9/config"


async def test_session_cost_contributor_is_registered():
    coordinator = ModuleCoordinator(session=None)
    await mount(coordinator, {"api_key": "k"})
    assert [c["name"] for c in coordinator.channels["session.cost"]] == ["anthropic"]


def test_importing_the_package_and_mounting_do_not_import_the_sdk():
    script = (
        "import asyncio, sys\n"
        "from amplifier_core.coordinator import ModuleCoordinator\n"
        "import amplifier_module_provider_anthropic as m\n"
        "assert 'anthropic' not in sys.modules, 'imported at package import'\n"
        "c = ModuleCoordinator(session=None)\n"
        "asyncio.run(m.mount(c, {'api_key': 'k'}))\n"
        "c.get('providers', 'anthropic').get_info()\n"
        "assert 'anthropic' not in sys.modules, 'imported by mount or get_info'\n"
        "assert 'httpx2' not in sys.modules\n"
    )
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr


async def test_the_kernel_provider_validator_passes(fake_api):
    from amplifier_core.validation.provider import ProviderValidator

    result = await ProviderValidator().validate(PACKAGE_DIR, config={"api_key": "k", "base_url": fake_api.base_url})
    assert result.passed, result.summary()
