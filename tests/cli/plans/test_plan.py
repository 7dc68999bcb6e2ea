"""build_plan: profile <- settings overrides <- flags; ${VAR} references kept until mount."""

from __future__ import annotations

import pytest

from amplifier_cli.config.env_refs import env_ref_names, expand_env_refs, expand_for_mount
from amplifier_cli.config.settings import load_settings
from amplifier_cli.errors import ConfigError
from amplifier_cli.plans.plan import build_plan

PROFILE = """
profile: {name: p}
session: {orchestrator: loop-basic, context: context-simple}
providers:
  - module: provider-anthropic
    config: {priority: 50, api_key: "${ANTHROPIC_API_KEY}"}
  - module: provider-openai
    config: {priority: 10}
tools: [{module: tool-bash}]
"""


@pytest.fixture
def profile(paths, write):
    write(paths.project_profiles_dir / "p.yaml", PROFILE)
    return paths


def test_flag_profile_beats_settings_which_beats_the_bundled_default(profile, write) -> None:
    assert build_plan(load_settings(profile)).profile_name == "default"
    write(profile.user_settings, "profile: {active: minimal}\n")
    built = build_plan(load_settings(profile))
    assert (built.profile_name, built.profile_source) == ("minimal", "user")
    built = build_plan(load_settings(profile), "p")
    assert (built.profile_name, built.profile_source) == ("p", "flag")


def test_settings_provider_overrides_merge_by_id_and_append_new_ones(profile, write) -> None:
    write(profile.user_settings, """
config:
  providers:
    - {module: provider-anthropic, config: {default_model: claude-x}}
    - {module: provider-ollama, source: /opt/ollama}
""")
    providers = build_plan(load_settings(profile), "p").plan["providers"]
    assert [p["module"] for p in providers] == ["provider-anthropic", "provider-openai", "provider-ollama"]
    assert providers[0]["config"] == {"priority": 50, "api_key": "${ANTHROPIC_API_KEY}", "default_model": "claude-x"}


def test_settings_modules_are_added_to_every_plan(profile, write) -> None:
    write(profile.project_settings, "modules: {tools: [{module: tool-web}], hooks: [{module: hooks-logging}]}\n")
    plan = build_plan(load_settings(profile), "p").plan
    assert [t["module"] for t in plan["tools"]] == ["tool-bash", "tool-web"]
    assert [h["module"] for h in plan["hooks"]] == ["hooks-logging"]


def test_provider_flag_keeps_only_that_provider_and_model_sets_its_default_model(profile) -> None:
    plan = build_plan(load_settings(profile), "p", provider="anthropic", model="claude-y").plan
    assert plan["providers"] == [{"module": "provider-anthropic",
                                  "config": {"priority": 50, "api_key": "${ANTHROPIC_API_KEY}",
                                             "default_model": "claude-y"}}]


def test_model_without_provider_goes_to_the_provider_that_offers_it(profile, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # both mount: the model's name decides, not the priority
    providers = build_plan(load_settings(profile), "p", model="gpt-z").plan["providers"]
    assert providers[1]["config"]["default_model"] == "gpt-z"
    assert "default_model" not in providers[0]["config"]
    plan = build_plan(load_settings(profile), "p", model="claude-z").plan
    assert plan["providers"][0]["config"]["default_model"] == "claude-z"
    assert plan["session"]["orchestrator"]["config"]["default_provider"] == "anthropic"


def test_unknown_provider_flag_is_a_config_error_listing_the_available_ones(profile) -> None:
    with pytest.raises(ConfigError) as caught:
        build_plan(load_settings(profile), "p", provider="ollama")
    assert caught.value.exit_code == 2
    assert "available: anthropic, openai" in caught.value.render()


def test_built_plan_keeps_references_and_expansion_happens_only_for_mount(profile, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret")
    plan = build_plan(load_settings(profile), "p").plan
    assert "sk-secret" not in repr(plan)
    config = plan["providers"][0]["config"]
    assert expand_for_mount("provider-anthropic", config)["api_key"] == "sk-secret"
    assert config["api_key"] == "${ANTHROPIC_API_KEY}"  # the plan itself is untouched


def test_expand_env_refs_supports_defaults_and_empties_unset_names() -> None:
    env = {"SET": "v", "EMPTY": ""}
    value = {"a": "${SET}", "b": "${UNSET:-fallback}", "c": ["x-${UNSET}-y"], "d": "${EMPTY:-dflt}",
             "e": "${UNSET:upstream-style}", "f": 3}
    assert expand_env_refs(value, env) == {"a": "v", "b": "fallback", "c": ["x--y"], "d": "dflt",
                                           "e": "upstream-style", "f": 3}


def test_env_ref_names_lists_referenced_variables_once() -> None:
    assert env_ref_names({"a": "${A} ${B:-x}", "b": ["${A}"]}) == ["A", "B"]
