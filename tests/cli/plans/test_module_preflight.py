"""Pre-flight checks that session-building code runs before the first request."""

from __future__ import annotations

import pytest

from amplifier_cli.config.settings import load_settings
from amplifier_cli.errors import ConfigError
from amplifier_cli.plans.module_preflight import check_plan_modules, no_provider_message
from amplifier_cli.plans.plan import build_plan
from amplifier_cli.plans.sources import make_resolver


def test_every_module_of_the_bundled_profiles_resolves(paths) -> None:
    settings = load_settings(paths)
    for name in ("default", "minimal", "demo"):
        check_plan_modules(build_plan(settings, name).plan, make_resolver(settings))


def test_unresolvable_modules_are_all_reported_as_one_config_error(paths, write, tmp_path) -> None:
    write(paths.project_profiles_dir / "p.yaml", f"""
profile: {{extends: minimal}}
tools:
  - module: tool-nowhere
  - module: tool-gone
    source: {tmp_path / 'gone'}
""")
    settings = load_settings(paths)
    with pytest.raises(ConfigError) as caught:
        check_plan_modules(build_plan(settings, "p").plan, make_resolver(settings))
    rendered = caught.value.render()
    assert caught.value.exit_code == 2
    assert "Module 'tool-nowhere' not found" in rendered and "amplifier source add tool-nowhere" in rendered
    assert "tool-gone" in rendered and "does not exist" in rendered


def test_no_provider_message_names_the_keys_and_the_demo_profile(paths, write) -> None:
    write(paths.project_profiles_dir / "p.yaml", """
profile: {extends: minimal}
providers: [{module: provider-openai, config: {api_key: "${MY_OPENAI_KEY}"}}]
""")
    plan = build_plan(load_settings(paths), "p").plan
    message = no_provider_message(plan, "p")
    assert "ANTHROPIC_API_KEY or MY_OPENAI_KEY" in message and "-P demo" in message


def test_unresolvable_module_error_lists_what_every_layer_answered(paths, write) -> None:
    write(paths.project_profiles_dir / "p.yaml", "profile: {extends: minimal}\ntools: [{module: tool-nowhere}]\n")
    settings = load_settings(paths)
    with pytest.raises(ConfigError) as caught:
        check_plan_modules(build_plan(settings, "p").plan, make_resolver(settings))
    rendered = caught.value.render()
    assert "AMPLIFIER_MODULE_TOOL_NOWHERE not set" in rendered
    assert "no sources.tool-nowhere in settings" in rendered
    assert "no installed entry point 'tool-nowhere'" in rendered
    assert not any(line.rstrip().endswith(":") for line in rendered.splitlines()[1:]), rendered
