"""Upstream bundles load wherever a profile is accepted: YAML or Markdown files with `bundle:`, `includes:`
(paths, `namespace:path`, names, git URLs), `context:` files, `agents:` includes and the body as instruction."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.errors import ConfigError
from amplifier_cli.plans.profiles import load_profile

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "bundles"


@pytest.fixture
def basekit(project_dir: Path) -> Path:
    """A copy of the upstream-shaped `basekit` bundle repository inside the project."""
    target = project_dir / "vendor" / "basekit"
    shutil.copytree(FIXTURES / "basekit", target)
    return target


APP_BUNDLE = """
    ---
    bundle:
      name: app
      version: 0.1.0
      description: The app bundle, built on basekit

    includes:
      - bundle: ../../../vendor/basekit
      - app:behaviors/extra

    tools:
      - module: tool-bash

    context:
      include:
        - app:context/notes.md
    ---

    APP-BODY: you work on this project.
"""


def _write_app(paths: AmplifierPaths, write) -> Path:
    root = paths.project_profiles_dir / "app"
    write(root / "behaviors" / "extra.yaml", """
        bundle: {name: app-extra-behavior, version: 1.0.0}
        providers:
          - module: provider-scripted
            config: {repeat_last: true}
        hooks:
          - module: hooks-logging
    """)
    write(root / "context" / "notes.md", "APP-NOTES: the project uses tabs.\n")
    return write(root / "bundle.md", APP_BUNDLE)


def test_markdown_bundle_merges_its_includes_in_order_then_itself(paths, basekit, write) -> None:
    _write_app(paths, write)
    profile = load_profile("app", paths)
    plan = profile.plan
    assert plan["session"]["orchestrator"] == {"module": "loop-basic"}
    assert plan["session"]["context"] == {"module": "context-simple", "config": {"max_tokens": 100000}}
    assert [p["module"] for p in plan["providers"]] == ["provider-scripted"]
    # the behaviour included second merges into basekit's provider entry by id (config deep-merged)
    assert plan["providers"][0]["config"] == {"script": [{"text": "BASEKIT-SCRIPTED-ANSWER"}], "repeat_last": True}
    assert [t["module"] for t in plan["tools"]] == ["tool-filesystem", "tool-bash"]
    assert [h["module"] for h in plan["hooks"]] == ["hooks-logging"]
    assert [loc.name for loc in profile.chain] == [
        "app", "app-extra-behavior", "basekit", "basekit-scripted-behavior"
    ]
    assert profile.description == "The app bundle, built on basekit" and profile.version == "0.1.0"


def test_instruction_is_the_last_body_followed_by_every_context_file_in_merge_order(paths, basekit, write) -> None:
    _write_app(paths, write)
    instruction = load_profile("app", paths).instruction or ""
    assert instruction == (
        "APP-BODY: you work on this project."
        "\n\n---\n\n# Context: basekit:context/rules.md\n\nBASEKIT-RULES: answer briefly."
        "\n\n---\n\n# Context: app:context/notes.md\n\nAPP-NOTES: the project uses tabs."
    )
    assert "BASEKIT-BODY" not in instruction  # a later body replaces an earlier one, as with extends


def test_agents_include_reads_agent_files_from_the_namespace(paths, basekit, write) -> None:
    _write_app(paths, write)
    agents = load_profile("app", paths).plan["agents"]
    helper = agents["basekit:helper"]
    assert helper["meta"]["description"] == "Looks things up for the main agent"
    assert helper["instruction"] == (  # the agent's @mention is expanded like the session's
        f'<context_file paths="@basekit:context/rules.md -> {basekit / "context" / "rules.md"}">\n'
        "BASEKIT-RULES: answer briefly.\n</context_file>"
        "\n\n---\n\nHELPER-AGENT-INSTRUCTION: you look things up.\n\n@basekit:context/rules.md"
    )
    assert helper["tools"] == [{"module": "tool-search"}]
    assert helper["model_role"] == "general"  # resolved through the routing matrix when the agent is spawned

    from amplifier_cli.plans.agents import load_agent_catalog

    catalog = load_agent_catalog(paths, agents, [loc.path for loc in load_profile("app", paths).chain])
    assert catalog.problems == []
    definition = catalog.get("basekit:helper")
    assert definition.description == "Looks things up for the main agent"
    assert definition.plan == {"tools": [{"module": "tool-search"}]}


def test_agents_accumulate_across_includes_and_inline_definitions_may_point_at_their_instructions(
    paths, basekit, write
) -> None:
    directory = paths.project_profiles_dir
    write(directory / "prompts" / "reviewer.md", "---\ndescription: Reviews diffs\n---\nREVIEWER-PROMPT\n")
    write(directory / "team.yaml", """
        bundle: {name: team}
        includes: [../../vendor/basekit]
        agents:
          reviewer:
            instructions: ./prompts/reviewer.md
            tools: [{module: tool-bash, source: ./mods/tool-bash}]
    """)
    agents = load_profile("team", paths).plan["agents"]
    assert set(agents) == {"basekit:helper", "reviewer"}
    assert agents["reviewer"]["instruction"] == "REVIEWER-PROMPT"
    assert agents["reviewer"]["description"] == "Reviews diffs"
    assert agents["reviewer"]["tools"] == [{"module": "tool-bash", "source": str(directory / "mods" / "tool-bash")}]


def test_a_bundles_spawn_policy_loads_into_the_plan_and_a_misspelt_key_is_named(paths, write) -> None:
    """`spawn:` is in most upstream bundles (`exclude_tools: [tool-task]`); it reaches the plan, where the
    spawner applies it, and an unknown key inside it is an error at its key path."""
    from amplifier_cli.config.settings import load_settings
    from amplifier_cli.plans.plan import build_plan

    write(paths.project_profiles_dir / "lead.md", """
        ---
        bundle: {name: lead}
        includes: [minimal]
        tools: [{module: tool-task}]
        spawn: {exclude_tools: [tool-task]}
        ---
        Lead.
    """)
    built = build_plan(load_settings(paths), "lead", paths=paths)
    assert built.plan["spawn"] == {"exclude_tools": ["tool-task"]}
    write(paths.project_profiles_dir / "typo.md", """
        ---
        bundle: {name: typo}
        spawn: {exclude_tool: [tool-task]}
        ---
        Typo.
    """)
    with pytest.raises(ConfigError) as caught:
        load_profile("typo", paths)
    assert "spawn.exclude_tool" in caught.value.render()


def test_yaml_bundle_includes_a_profile_by_name_and_a_file_included_twice_is_merged_once(paths, write) -> None:
    directory = paths.project_profiles_dir
    write(directory / "parts" / "a.yaml", """
        bundle: {name: part-a}
        includes: [./shared]
        tools: [{module: tool-a, config: {x: a}}]
    """)
    write(directory / "parts" / "b.yaml", """
        bundle: {name: part-b}
        includes: [./shared]
        tools: [{module: tool-shared, config: {who: b}}]
    """)
    write(directory / "parts" / "shared.yaml", """
        bundle: {name: shared}
        tools: [{module: tool-shared, config: {who: shared}}]
    """)
    write(directory / "whole.yaml", """
        bundle: {name: whole, description: two parts on top of minimal}
        includes: [minimal, parts/a, ./parts/b]
    """)
    profile = load_profile("whole", paths)
    tools = profile.plan["tools"]
    assert [t["module"] for t in tools] == ["tool-shared", "tool-a"]
    assert tools[0]["config"] == {"who": "b"}  # shared merged once, before a; b's override stays on top
    assert [p["module"] for p in profile.plan["providers"]] == ["provider-anthropic", "provider-openai"]
    assert profile.instruction == "You are a helpful assistant."  # from the bundled `minimal` profile
    assert [loc.name for loc in profile.chain] == ["whole", "part-b", "part-a", "shared", "minimal"]


def test_a_bundle_path_can_be_given_directly(paths, basekit) -> None:
    profile = load_profile("./vendor/basekit", paths)
    assert profile.name == str(basekit / "bundle.md") and profile.location.origin == "path"
    assert [p["module"] for p in profile.plan["providers"]] == ["provider-scripted"]
    assert "\n\n---\n\n# Core Instructions\n\nBASEKIT-BODY" in (profile.instruction or "")
    assert load_profile(profile.name, paths).plan == profile.plan  # the name reloads it (for `profile use`)


# -- git includes ------------------------------------------------------------------------------------------


def _basekit_remote(git_repos):
    remote = git_repos.make("amplifier-bundle-basekit")
    files = {str(p.relative_to(FIXTURES / "basekit")): p.read_text() for p in (FIXTURES / "basekit").rglob("*")
             if p.is_file()}
    remote.commit(files, "basekit 1.0.0")
    remote.push()
    return remote


def test_git_include_is_fetched_into_the_git_cache_and_its_namespace_resolves(
    paths, git_repos, write, amplifier_home
) -> None:
    remote = _basekit_remote(git_repos)
    write(paths.project_profiles_dir / "remote.md", f"""
        ---
        bundle: {{name: remote-app}}
        includes:
          - bundle: git+{remote.url}@main
        ---
        REMOTE-BODY
    """)
    profile = load_profile("remote", paths)
    assert [p["module"] for p in profile.plan["providers"]] == ["provider-scripted"]
    assert "BASEKIT-RULES: answer briefly." in (profile.instruction or "")
    assert "basekit:helper" in profile.plan["agents"]
    cached = [loc.path for loc in profile.chain if loc.origin == "git"]
    assert cached and all((amplifier_home / "cache") in path.parents for path in cached)


def test_a_behaviour_from_a_git_subdirectory_sees_its_repository_namespace(paths, git_repos, write) -> None:
    remote = _basekit_remote(git_repos)
    write(paths.project_profiles_dir / "lean.yaml", f"""
        bundle: {{name: lean}}
        includes:
          - minimal
          - bundle: git+{remote.url}@main#subdirectory=behaviors/scripted.yaml
    """)
    profile = load_profile("lean", paths)
    assert [p["module"] for p in profile.plan["providers"]] == [
        "provider-anthropic", "provider-openai", "provider-scripted"
    ]
    assert (profile.instruction or "").endswith("# Context: basekit:context/rules.md\n\nBASEKIT-RULES: answer briefly.")


# -- errors ------------------------------------------------------------------------------------------------


def test_include_cycle_names_the_file_and_the_include_that_closes_it(paths, write) -> None:
    directory = paths.project_profiles_dir
    write(directory / "a.md", "---\nbundle: {name: a}\nincludes: [./b.yaml]\n---\nA\n")
    write(directory / "b.yaml", "bundle: {name: b}\nincludes:\n  - ./c.yaml\n  - ./a.md\n")
    write(directory / "c.yaml", "bundle: {name: c}\n")
    with pytest.raises(ConfigError) as caught:
        load_profile("a", paths)
    rendered = caught.value.render()
    assert caught.value.exit_code == 2
    assert f"{directory / 'b.yaml'}:4: includes[1]: bundle include cycle: " in rendered
    assert f"{directory / 'a.md'} -> {directory / 'b.yaml'} -> {directory / 'a.md'}" in rendered
    assert "(fix: remove one of the" in rendered


def test_missing_include_names_file_line_key_path_and_fix(paths, write) -> None:
    path = write(paths.project_profiles_dir / "m.yaml", """
        bundle: {name: m}
        includes:
          - minimal
          - bundle: ./parts/one
          - ./parts/missing
    """)
    write(paths.project_profiles_dir / "parts" / "one.yaml", "bundle: {name: one}\n")
    with pytest.raises(ConfigError) as caught:
        load_profile("m", paths)
    rendered = caught.value.render()
    assert rendered.startswith(f"{path}:5: includes[2]: include './parts/missing' not found: no bundle file at ")
    assert "(fix: create missing.md or missing.yaml there, or missing/bundle.md" in rendered


def test_unknown_namespace_and_missing_context_file_are_reported_at_their_key(paths, write) -> None:
    path = write(paths.project_profiles_dir / "ns.yaml", "bundle: {name: ns}\nincludes: [nowhere:behaviors/x]\n")
    with pytest.raises(ConfigError) as caught:
        load_profile("ns", paths)
    assert f"{path}:2: includes[0]: include 'nowhere:behaviors/x' not found: unknown namespace 'nowhere'" in (
        caught.value.render()
    )
    path = write(paths.project_profiles_dir / "ctx.yaml", """
        bundle: {name: ctx}
        includes: [minimal]
        context:
          include:
            - ctx:context/here.md
            - ctx:context/gone.md
    """)
    write(paths.project_profiles_dir / "context" / "here.md", "here\n")
    with pytest.raises(ConfigError) as caught:
        load_profile("ctx", paths)
    assert f"{path}:6: context.include[1]: file 'ctx:context/gone.md' not found" in caught.value.render()


def test_missing_agent_file_and_unreachable_git_include_are_config_errors(paths, write, tmp_path) -> None:
    path = write(paths.project_profiles_dir / "ag.yaml", "bundle: {name: ag}\nincludes: [minimal]\n"
                 "agents: {include: [ag:ghost]}\n")
    with pytest.raises(ConfigError) as caught:
        load_profile("ag", paths)
    assert f"{path}:3: agents.include[0]: agent 'ag:ghost' not found" in caught.value.render()
    path = write(paths.project_profiles_dir / "gone.yaml",
                 f"bundle: {{name: gone}}\nincludes:\n  - git+file://{tmp_path}/no-such-repo.git@main\n")
    with pytest.raises(ConfigError) as caught:
        load_profile("gone", paths)
    assert caught.value.exit_code == 2
    assert f"{path}:3: includes[0]: include 'git+file://{tmp_path}/no-such-repo.git@main' not found: cannot " \
           "fetch" in caught.value.render()


def test_unknown_bundle_key_is_rejected_with_the_closest_valid_key(paths, write) -> None:
    path = write(paths.project_profiles_dir / "typo.yaml", "bundle: {name: typo}\nincludez: [minimal]\n")
    with pytest.raises(ConfigError) as caught:
        load_profile("typo", paths)
    assert f"{path}:2: includez: unknown key 'includez' (fix: did you mean 'includes'?)" in caught.value.render()


def test_a_git_url_can_be_given_directly_and_reloads_by_its_name(paths, git_repos) -> None:
    remote = _basekit_remote(git_repos)
    profile = load_profile(f"git+{remote.url}@main", paths)
    assert profile.name == f"git+{remote.url}@main" and profile.location.origin == "git"
    assert profile.location.path.name == "bundle.md"
    assert "basekit:helper" in profile.plan["agents"]
    assert load_profile(profile.name, paths).plan == profile.plan


def test_namespace_mentions_are_prepended_as_context_file_blocks_and_followed(paths, basekit) -> None:
    instruction = load_profile("./vendor/basekit", paths).instruction or ""
    mentioned, body, rules = instruction.split("\n\n---\n\n")
    context = basekit / "context"
    philosophy = context / "philosophy.md"
    assert mentioned.startswith(f'<context_file paths="@basekit:context/philosophy.md -> {philosophy}">\n'
                                "BASEKIT-PHILOSOPHY: keep it simple.")
    # the file philosophy.md mentions is followed; its fenced example and unknown namespace are not
    assert mentioned.endswith(f'<context_file paths="@basekit:context/deeper.md -> {context / "deeper.md"}">\n'
                              "BASEKIT-DEEPER: and test it.\n</context_file>")
    assert mentioned.count("<context_file ") == 2 and "in-code.md ->" not in mentioned
    assert "ops@example.com" in mentioned and "@nowhere:context/x.md" in mentioned  # left as text
    assert body.startswith("# Core Instructions") and body.endswith("@basekit:context/philosophy.md")  # kept
    assert rules == "# Context: basekit:context/rules.md\n\nBASEKIT-RULES: answer briefly."


def test_a_bundle_in_the_user_profiles_dir_loads_by_name(paths, write) -> None:
    write(paths.user_profiles_dir / "mine" / "bundle.yaml", """
        bundle: {name: mine, description: user bundle}
        includes: [minimal]
        tools: [{module: tool-web}]
    """)
    profile = load_profile("mine", paths)
    assert profile.location.origin == "user" and profile.description == "user bundle"
    assert [t["module"] for t in profile.plan["tools"]] == ["tool-web"]
