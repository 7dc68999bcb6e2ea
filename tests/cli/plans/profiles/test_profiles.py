"""Profiles: search order, extends chains, merge rules, exclude, instructions, Markdown profiles, bundled set."""

from __future__ import annotations

from pathlib import Path

import pytest

from amplifier_cli.config.paths import AmplifierPaths, bundled_profiles_dir
from amplifier_cli.errors import ConfigError
from amplifier_cli.plans.profiles import load_profile
from amplifier_cli.plans.profiles.loader import list_locations

BASE = """
profile: {name: base, description: base profile}
session:
  orchestrator: {module: loop-basic, config: {max_iterations: 5, nested: {a: 1, b: 2}}}
  context: {module: context-simple}
providers:
  - module: provider-anthropic
    source: git+https://example.invalid/provider-anthropic@main
    config: {priority: 1, default_model: m1, extra: {x: 1, y: 2}}
  - module: provider-openai
tools:
  - module: tool-filesystem
  - module: tool-bash
hooks:
  - module: hooks-logging
  - module: hooks-redaction
instruction: base instruction
"""


@pytest.fixture
def bundled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Replace the bundled profiles dir with an empty scratch one."""
    directory = tmp_path / "bundled"
    directory.mkdir()
    monkeypatch.setattr("amplifier_cli.plans.profiles.loader.bundled_profiles_dir", lambda: directory)
    return directory


def _minimal(name: str, marker: str) -> str:
    return f"""
profile: {{name: {name}, description: {marker}}}
session: {{orchestrator: loop-basic, context: context-simple}}
"""


def test_project_profile_beats_user_which_beats_bundled(paths: AmplifierPaths, bundled: Path, write) -> None:
    write(bundled / "p.yaml", _minimal("p", "bundled"))
    assert load_profile("p", paths).description == "bundled"
    write(paths.user_profiles_dir / "p.yaml", _minimal("p", "user"))
    assert load_profile("p", paths).description == "user"
    write(paths.project_profiles_dir / "p.yaml", _minimal("p", "project"))
    loaded = load_profile("p", paths)
    assert (loaded.description, loaded.location.origin) == ("project", "project")
    assert [loc.origin for loc in list_locations(paths, "p")] == ["project", "user", "bundled"]


def test_yaml_wins_over_markdown_of_the_same_name_in_one_directory(paths, bundled, write) -> None:
    write(bundled / "p.md", "---\n" + _minimal("p", "md") + "---\nbody\n")
    write(bundled / "p.yaml", _minimal("p", "yaml"))
    assert load_profile("p", paths).description == "yaml"


def test_child_merges_module_lists_by_id_and_deep_merges_config(paths, bundled, write) -> None:
    write(bundled / "base.yaml", BASE)
    write(paths.user_profiles_dir / "child.yaml", """
        profile: {name: child, extends: base}
        providers:
          - module: provider-anthropic
            config: {default_model: m2, extra: {y: 20, z: 30}}
          - module: provider-scripted
        tools:
          - module: tool-web
    """)
    plan = load_profile("child", paths).plan
    anthropic = plan["providers"][0]
    assert [p["module"] for p in plan["providers"]] == ["provider-anthropic", "provider-openai", "provider-scripted"]
    assert anthropic["config"] == {"priority": 1, "default_model": "m2", "extra": {"x": 1, "y": 20, "z": 30}}
    assert anthropic["source"] == "git+https://example.invalid/provider-anthropic@main"  # inherited
    assert [t["module"] for t in plan["tools"]] == ["tool-filesystem", "tool-bash", "tool-web"]


def test_same_orchestrator_merges_config_but_a_different_one_replaces_it(paths, bundled, write) -> None:
    write(bundled / "base.yaml", BASE)
    write(bundled / "same.yaml", """
        profile: {extends: base}
        session: {orchestrator: {module: loop-basic, config: {nested: {b: 3}}}}
    """)
    write(bundled / "other.yaml", """
        profile: {extends: base}
        session: {orchestrator: loop-streaming}
    """)
    same = load_profile("same", paths).plan["session"]["orchestrator"]
    assert same == {"module": "loop-basic", "config": {"max_iterations": 5, "nested": {"a": 1, "b": 3}}}
    other = load_profile("other", paths).plan["session"]["orchestrator"]
    assert other == {"module": "loop-streaming"}


def test_string_orchestrator_with_upstream_source_and_top_level_config_is_canonicalised(paths, bundled, write):
    write(bundled / "p.yaml", """
        session:
          orchestrator: loop-basic
          orchestrator_source: ./mods/loop
          context: context-simple
        orchestrator: {config: {max_iterations: 3}}
    """)
    orchestrator = load_profile("p", paths).plan["session"]["orchestrator"]
    assert orchestrator == {"module": "loop-basic", "source": str(bundled / "mods" / "loop"),
                            "config": {"max_iterations": 3}}


def test_exclude_list_removes_inherited_ids_and_all_empties_a_section(paths, bundled, write) -> None:
    write(bundled / "base.yaml", BASE)
    write(bundled / "child.yaml", """
        profile: {extends: base}
        exclude: {tools: [tool-bash], hooks: all}
        hooks: [{module: hooks-streaming-ui}]
    """)
    plan = load_profile("child", paths).plan
    assert [t["module"] for t in plan["tools"]] == ["tool-filesystem"]
    assert [h["module"] for h in plan["hooks"]] == ["hooks-streaming-ui"]  # own entries survive 'all'


def test_exclude_is_not_inherited_by_grandchildren(paths, bundled, write) -> None:
    write(bundled / "base.yaml", BASE)
    write(bundled / "child.yaml", "profile: {extends: base}\nexclude: {tools: [tool-bash]}\n")
    write(bundled / "grandchild.yaml", "profile: {extends: child}\ntools: [{module: tool-bash}]\n")
    plan = load_profile("grandchild", paths).plan
    assert [t["module"] for t in plan["tools"]] == ["tool-filesystem", "tool-bash"]
    assert "exclude" not in plan


def test_instruction_is_inherited_unless_replaced(paths, bundled, write) -> None:
    write(bundled / "base.yaml", BASE)
    write(bundled / "keeps.yaml", "profile: {extends: base}\n")
    write(bundled / "replaces.md", "---\nprofile: {extends: base}\n---\nnew body\n")
    assert load_profile("keeps", paths).instruction == "base instruction"
    assert load_profile("replaces", paths).instruction == "new body"


def test_upstream_markdown_profile_with_collection_extends_is_read(paths, bundled, write) -> None:
    write(bundled / "base.yaml", BASE)
    write(paths.user_profiles_dir / "dev.md", """
        ---
        profile: {name: dev, version: "1.0.0", description: dev, extends: "foundation:profiles/base.md"}
        tools:
          - module: tool-web
        ---
        You are a developer assistant.
    """)
    loaded = load_profile("dev", paths)
    assert loaded.instruction == "You are a developer assistant."
    assert [loc.name for loc in loaded.chain] == ["dev", "base"]
    assert loaded.plan["tools"][-1] == {"module": "tool-web"}


def test_extends_of_its_own_name_means_the_next_lower_location(paths, bundled, write) -> None:
    write(bundled / "default.yaml", BASE)
    write(paths.user_profiles_dir / "default.yaml", "profile: {extends: default}\ntools: [{module: tool-web}]\n")
    loaded = load_profile("default", paths)
    assert [loc.origin for loc in loaded.chain] == ["user", "bundled"]
    assert loaded.plan["tools"][-1]["module"] == "tool-web"


def test_explicit_null_removes_an_inherited_config_key(paths, bundled, write) -> None:
    write(bundled / "base.yaml", BASE)
    write(bundled / "child.yaml", """
        profile: {extends: base}
        providers: [{module: provider-anthropic, config: {default_model: null}}]
    """)
    assert "default_model" not in load_profile("child", paths).plan["providers"][0]["config"]


def test_env_references_are_kept_verbatim_in_the_loaded_plan(paths, bundled, write, monkeypatch) -> None:
    monkeypatch.setenv("SECRET_KEY_FOR_TEST", "sk-live-123")
    write(bundled / "p.yaml", """
        session: {orchestrator: loop-basic, context: context-simple}
        providers: [{module: provider-anthropic, config: {api_key: "${SECRET_KEY_FOR_TEST}"}}]
    """)
    assert load_profile("p", paths).plan["providers"][0]["config"]["api_key"] == "${SECRET_KEY_FOR_TEST}"


def test_relative_sources_are_relative_to_the_declaring_file(paths, bundled, write) -> None:
    write(paths.project_profiles_dir / "p.yaml", """
        session: {orchestrator: loop-basic, context: context-simple}
        tools: [{module: tool-x, source: ./mods/tool-x}, {module: tool-y, source: "~/mods/tool-y"}]
    """)
    tools = load_profile("p", paths).plan["tools"]
    assert tools[0]["source"] == str(paths.project_profiles_dir / "mods" / "tool-x")
    assert tools[1]["source"] == str(Path.home() / "mods" / "tool-y")


def test_extends_cycle_is_reported_with_the_chain(paths, bundled, write) -> None:
    write(bundled / "a.yaml", "profile: {extends: b}\n")
    write(bundled / "b.yaml", "profile: {extends: a}\n")
    with pytest.raises(ConfigError) as caught:
        load_profile("a", paths)
    assert "inheritance cycle" in caught.value.render()
    assert "a.yaml -> " in caught.value.render() and caught.value.exit_code == 2


@pytest.mark.parametrize("name", ["default", "minimal", "demo"])
def test_every_bundled_profile_loads_and_validates_as_a_mount_plan(name: str, paths: AmplifierPaths) -> None:
    from amplifier_core.validation import MountPlanValidator

    loaded = load_profile(name, paths)
    assert loaded.location.origin == "bundled"
    result = MountPlanValidator().validate(loaded.plan)
    assert result.passed, result.format_errors()


def test_bundled_profiles_dir_holds_exactly_the_shipped_profiles() -> None:
    names = sorted(p.stem for p in bundled_profiles_dir().glob("*.yaml"))
    assert names == ["default", "demo", "minimal"]


def test_bundled_default_profile_has_the_documented_modules(paths: AmplifierPaths) -> None:
    plan = load_profile("default", paths).plan
    assert plan["session"]["orchestrator"]["module"] == "loop-streaming"
    assert plan["session"]["context"]["module"] == "context-simple"
    assert [p["module"] for p in plan["providers"]] == ["provider-anthropic", "provider-openai"]
    assert [t["module"] for t in plan["tools"]] == [
        "tool-filesystem", "tool-bash", "tool-web", "tool-todo", "tool-task", "tool-mcp", "tool-skills"]
    assert {h["module"] for h in plan["hooks"]} == {
        "hooks-streaming-ui", "hook-shell", "hooks-approval", "hooks-logging", "hooks-redaction"}


def test_bundled_minimal_has_no_tools_and_demo_needs_no_api_key(paths: AmplifierPaths) -> None:
    minimal = load_profile("minimal", paths).plan
    assert minimal["session"]["orchestrator"]["module"] == "loop-basic" and not minimal.get("tools")
    demo = load_profile("demo", paths)
    assert [p["module"] for p in demo.plan["providers"]] == ["provider-scripted"]
    assert "scripted" in (demo.description or "").lower()
    script = demo.plan["providers"][0]["config"]["script"]
    assert script[0]["tool_calls"][0]["name"] == "write_file" and "text" in script[-1]
