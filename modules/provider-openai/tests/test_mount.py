"""mount(): credentials, base URLs, config parsing, lazy SDK import, validator conformance."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import amplifier_module_provider_openai as package
import pytest
from amplifier_module_provider_openai import mount
from fakeapi import Turn

from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.message_models import ChatRequest, response_text
from amplifier_core.module_config import ModuleConfigError
from amplifier_core.validation import ProviderValidator

PACKAGE_DIR = Path(package.__file__).parent


@pytest.fixture(autouse=True)
def no_openai_env(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
async def mounted():
    """Mount with a fresh coordinator; closes the provider after the test."""
    cleanups = []

    async def do_mount(config):
        coordinator = ModuleCoordinator(session=None)
        cleanup = await mount(coordinator, config)
        if cleanup is not None:
            cleanups.append(cleanup)
        return coordinator, cleanup

    yield do_mount
    for cleanup in cleanups:
        await cleanup()


async def test_without_key_or_base_url_nothing_is_mounted_and_one_line_says_which_variable_to_set(mounted, caplog):
    with caplog.at_level(logging.WARNING):
        coordinator, cleanup = await mounted({})
    assert cleanup is None
    assert coordinator.get("providers") == {}
    [record] = [r for r in caplog.records if r.name.startswith("amplifier_module_provider_openai")]
    assert "OPENAI_API_KEY" in record.getMessage() and "\n" not in record.getMessage()


async def test_key_from_the_environment_mounts_the_provider_named_openai(mounted, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    coordinator, cleanup = await mounted({})
    provider = coordinator.get("providers", "openai")
    assert provider.name == "openai" and provider._api_key == "sk-env" and provider.base_url is None
    assert callable(cleanup)


async def test_keyless_base_url_uses_a_placeholder_key_for_local_servers(mounted, fake_api):
    fake_api.add(Turn(text="local answer"))
    coordinator, _ = await mounted({"base_url": fake_api.openai_base_url, "api": "chat",
                                    "default_model": "qwen3:8b"})
    provider = coordinator.get("providers", "openai")
    response = await provider.complete(ChatRequest(messages=[{"role": "user", "content": "hi"}]))
    assert response_text(response) == "local answer"
    assert fake_api.requests[0].path == "/v1/chat/completions"
    assert fake_api.requests[0].headers["authorization"] == "Bearer not-needed"
    assert fake_api.requests[0].json["model"] == "qwen3:8b"


async def test_openai_base_url_from_the_environment_is_honoured(mounted, fake_api, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", fake_api.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    fake_api.add(Turn(text="via env"))
    coordinator, _ = await mounted({"max_retries": 0})
    response = await coordinator.get("providers", "openai").complete(
        ChatRequest(messages=[{"role": "user", "content": "hi"}]))
    assert response_text(response) == "via env"
    assert fake_api.requests[0].path == "/v1/responses"
    assert fake_api.requests[0].headers["authorization"] == "Bearer sk-env"


async def test_config_base_url_wins_over_the_environment(mounted, fake_api, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    fake_api.add(Turn(text="via config"))
    coordinator, _ = await mounted({"base_url": fake_api.openai_base_url, "api_key": "sk-config"})
    response = await coordinator.get("providers", "openai").complete(
        ChatRequest(messages=[{"role": "user", "content": "hi"}]))
    assert response_text(response) == "via config"
    assert fake_api.requests[0].headers["authorization"] == "Bearer sk-config"


@pytest.mark.parametrize("key", ["model", "use_streaming", "reasoning"])
async def test_unknown_config_keys_are_rejected_with_the_closest_valid_key(mounted, key):
    with pytest.raises(ModuleConfigError, match=f"unknown key '{key}'"):
        await mounted({"api_key": "sk", key: "x"})


async def test_model_key_error_points_to_default_model(mounted):
    with pytest.raises(ModuleConfigError, match="default_model"):
        await mounted({"api_key": "sk", "model": "gpt-5"})


async def test_session_cost_is_contributed(mounted, fake_api):
    fake_api.add(Turn(text="x"))
    coordinator, _ = await mounted({"api_key": "sk", "base_url": fake_api.openai_base_url,
                                    "default_model": "gpt-4o-mini"})
    await coordinator.get("providers", "openai").complete(ChatRequest(messages=[{"role": "user", "content": "x"}]))
    [contribution] = await coordinator.collect_contributions("session.cost")
    assert contribution == {"cost_usd": "0.00000450"}


def test_get_info_describes_the_provider_without_credentials():
    from amplifier_module_provider_openai import OpenAIConfig, OpenAIProvider

    info = OpenAIProvider(OpenAIConfig(), api_key="unused").get_info()
    assert info.id == "openai" and info.credential_env_vars == ["OPENAI_API_KEY"]
    assert info.defaults["model"] == "gpt-5.1" and info.defaults["context_window"] > 0
    assert {field.id for field in info.config_fields} >= {"api_key", "base_url", "api", "default_model"}


def test_importing_the_package_does_not_import_the_sdk():
    code = ("import sys, amplifier_module_provider_openai; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('openai', 'httpx2', 'httpx')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_a_profile_listing_it_without_a_key_does_not_load_the_provider_code():
    code = ("import asyncio, sys, amplifier_module_provider_openai as m; "
            "print(asyncio.run(m.mount(object(), {})), "
            "sorted(n for n in sys.modules if n.startswith('amplifier_module_provider_openai.provider')))")
    env = {key: value for key, value in os.environ.items() if key not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert result.stdout.strip() == "None []"


async def test_the_kernel_provider_validator_passes():
    result = await ProviderValidator().validate(PACKAGE_DIR, config={"api_key": "sk-test"})
    assert result.passed, [check for check in result.checks if not check.passed]
