"""Keys stay with the process that needs them: the model's commands (foreground and background) see no
credential-like variable and no variable holding a value the app knows to be secret, unless pass_env names it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from amplifier_module_tool_bash import mount

from amplifier_core.coordinator import ModuleCoordinator

KEYS = {"ANTHROPIC_API_KEY": "sk-ant-test-value-1", "OPENAI_API_KEY": "sk-openai-test-value-2",
        "AZURE_OPENAI_API_KEY": "azure-test-value-3", "GITHUB_TOKEN": "ghp-test-value-4",
        "AWS_SECRET_ACCESS_KEY": "aws-secret-test-value-5", "AWS_SESSION_TOKEN": "aws-session-test-value-6",
        "DB_PASSWORD": "db-password-test-7", "GOOGLE_APPLICATION_CREDENTIALS": "/keys/gcp-test-8.json"}


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("ORDINARY_SETTING", "ordinary-value")
    monkeypatch.setenv("MY_LLM", "sk-known-to-the-app-9")  # a provider key under a name no rule knows
    return KEYS


async def _run(tmp_path: Path, command: str, config: dict | None = None, background: bool = False) -> str:
    coordinator = ModuleCoordinator(session=None)
    coordinator.register_capability("session.working_dir", str(tmp_path))
    coordinator.register_capability("secrets.values", {"MY_LLM": "sk-known-to-the-app-9"})
    cleanup = await mount(coordinator, {"kill_grace_seconds": 0.2, **(config or {})})
    bash = coordinator.get("tools", "bash")
    try:
        if not background:
            return (await bash.execute({"command": command})).output
        await bash.execute({"command": command, "run_in_background": True})
        await asyncio.to_thread(bash.jobs["bg1"].process.wait, 10)
        return (await bash.read_job("bg1")).output
    finally:
        await cleanup()


@pytest.mark.parametrize("background", [False, True])
async def test_commands_see_no_credential_like_variable(tmp_path: Path, keys: dict[str, str],
                                                        background: bool) -> None:
    output = await _run(tmp_path, "env", background=background)
    for name, value in keys.items():
        assert name not in output and value not in output
    assert "sk-known-to-the-app-9" not in output and "MY_LLM" not in output
    assert "ORDINARY_SETTING=ordinary-value" in output and "PAGER=cat" in output


async def test_pass_env_names_the_ones_a_command_may_see(tmp_path: Path, keys: dict[str, str]) -> None:
    output = await _run(tmp_path, "env", {"pass_env": ["GITHUB_TOKEN", "AWS_*", "MY_LLM"]})
    assert "GITHUB_TOKEN=ghp-test-value-4" in output
    assert "AWS_SECRET_ACCESS_KEY=aws-secret-test-value-5" in output and "MY_LLM=sk-known-to-the-app-9" in output
    assert "ANTHROPIC_API_KEY" not in output and "sk-ant-test-value-1" not in output
