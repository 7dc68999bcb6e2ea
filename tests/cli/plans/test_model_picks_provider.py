"""`--model X`: the only provider that offers X and will mount answers; otherwise the usual choice stands."""

from __future__ import annotations

import copy

import pytest

from amplifier_cli.plans.plan import _model_provider

PLAN = {"session": {"orchestrator": {"module": "loop-streaming"}},
        "providers": [{"module": "provider-anthropic", "config": {"priority": 10}},
                      {"module": "provider-openai", "config": {"priority": 20}}]}


def test_a_model_of_a_provider_that_will_not_mount_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    plan = copy.deepcopy(PLAN)
    assert _model_provider(plan, "gpt-5-mini")["module"] == "provider-anthropic"
    assert "config" not in plan["session"]["orchestrator"]  # no default_provider naming an absent provider
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    assert _model_provider(plan, "gpt-5-mini")["module"] == "provider-openai"
    assert plan["session"]["orchestrator"]["config"] == {"default_provider": "openai"}
