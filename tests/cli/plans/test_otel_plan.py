"""OTEL_EXPORTER_OTLP_ENDPOINT (the user's own variable) adds hooks-otel to the session's plan, once; a plan
that mounts it already keeps its entry; OTEL_SDK_DISABLED=true keeps it out."""

from __future__ import annotations

import pytest

from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.config.settings import load_settings
from amplifier_cli.plans.otel_env import apply_otel_environment, otel_requested
from amplifier_cli.plans.plan import build_plan


def hook_modules(plan: dict) -> list[str]:
    return [entry["module"] for entry in plan.get("hooks") or []]


@pytest.mark.parametrize("variable", ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"])
def test_an_endpoint_in_the_environment_adds_hooks_otel_to_the_built_plan(monkeypatch, tmp_path, variable):
    monkeypatch.setenv(variable, "http://127.0.0.1:4318")
    monkeypatch.delenv("OTEL_SDK_DISABLED", raising=False)
    paths = AmplifierPaths.discover(cwd=tmp_path)
    plan = build_plan(load_settings(paths), "default", paths=paths).plan
    assert hook_modules(plan).count("hooks-otel") == 1
    assert plan["hooks"][-1] == {"module": "hooks-otel"}  # no config: the module reads the same variables


def test_without_an_endpoint_the_plan_has_no_hooks_otel(monkeypatch, tmp_path):
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    paths = AmplifierPaths.discover(cwd=tmp_path)
    assert "hooks-otel" not in hook_modules(build_plan(load_settings(paths), "default", paths=paths).plan)


def test_a_plan_that_mounts_hooks_otel_keeps_its_own_entry_and_config() -> None:
    plan = {"hooks": [{"module": "hooks-otel", "config": {"endpoint": "http://collector:4318"}}]}
    apply_otel_environment(plan, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"})
    assert plan["hooks"] == [{"module": "hooks-otel", "config": {"endpoint": "http://collector:4318"}}]


def test_otel_sdk_disabled_or_a_blank_endpoint_asks_for_nothing() -> None:
    assert otel_requested({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318"})
    assert not otel_requested({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_SDK_DISABLED": "TRUE"})
    assert not otel_requested({"OTEL_EXPORTER_OTLP_ENDPOINT": "  "})
    plan: dict = {}
    apply_otel_environment(plan, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_SDK_DISABLED": "true"})
    assert plan == {}
