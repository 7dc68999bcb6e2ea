"""Agent definitions: Markdown and YAML files, profile `agents:` entries, precedence, selection, errors that
name file/line/key, and the child plan merged over the parent's."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from testkit.agent_profiles import write_agent

from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.errors import ConfigError
from amplifier_cli.plans.agents import load_agent_catalog
from amplifier_cli.plans.agents.catalog import select_agents
from amplifier_cli.plans.agents.listing import agent_detail
from amplifier_cli.plans.agents.overlay import plan_for_agent


def paths_for(project: Path) -> AmplifierPaths:
    return AmplifierPaths.discover(cwd=project)


def test_markdown_agent_takes_frontmatter_and_body_as_instruction(project_dir):
    write_agent(project_dir, "reader", "You read files.\nBe thorough.",
                frontmatter={"tools": [{"module": "tool-filesystem", "config": {"allowed_write_paths": []}}],
                             "model": "small-model"})
    reader = load_agent_catalog(paths_for(project_dir)).agents["reader"]
    assert reader.description == "The reader agent."
    assert reader.instruction == "You read files.\nBe thorough."
    assert reader.plan == {"tools": [{"module": "tool-filesystem", "config": {"allowed_write_paths": []}}]}
    assert reader.model == "small-model" and reader.origin == "project"


def test_yaml_agent_accepts_upstream_meta_block_and_name_defaults_to_the_file_stem(project_dir):
    agents = project_dir / ".amplifier" / "agents"
    agents.mkdir(parents=True)
    (agents / "planner.yaml").write_text(yaml.safe_dump({"meta": {"description": "Plans work."},
                                                         "instruction": "Make a plan."}))
    (agents / "bare.yml").write_text("instruction: hi\n")
    catalog = load_agent_catalog(paths_for(project_dir))
    assert catalog.agents["planner"].description == "Plans work."
    assert catalog.agents["bare"].description == "Agent: bare"


def test_project_file_wins_over_user_file_which_wins_over_profile_entry(project_dir, amplifier_home):
    write_agent(project_dir, "dup", "project version")
    user_dir = amplifier_home / "config" / "agents"
    user_dir.mkdir(parents=True)
    (user_dir / "dup.md").write_text("---\ndescription: user\n---\nuser version\n")
    (user_dir / "mine.md").write_text("---\ndescription: user only\n---\nuser agent\n")
    profile_agents = {"dup": {"instruction": "profile version"}, "inline": {"description": "Inline."}}
    catalog = load_agent_catalog(paths_for(project_dir), profile_agents)
    assert catalog.agents["dup"].instruction == "project version"
    assert catalog.agents["mine"].origin == "user"
    assert catalog.agents["inline"].origin == "profile"
    assert len(catalog.shadowed["dup"]) == 2


@pytest.mark.parametrize(("selection", "expected"), [(None, ["a", "b"]), ("all", ["a", "b"]), ("none", []),
                                                     (["b"], ["b"])])
def test_profile_agents_value_selects_which_agents_a_session_sees(project_dir, selection, expected):
    write_agent(project_dir, "a", "A")
    write_agent(project_dir, "b", "B")
    assert sorted(load_agent_catalog(paths_for(project_dir), selection).agents) == expected


def test_a_selected_name_that_is_not_defined_is_reported(project_dir):
    catalog = load_agent_catalog(paths_for(project_dir), ["ghost"])
    assert catalog.agents == {}
    assert "'ghost'" in catalog.problems[0].message


def test_invalid_file_is_reported_with_line_and_closest_key_and_other_agents_still_load(project_dir):
    write_agent(project_dir, "good", "fine")
    bad = project_dir / ".amplifier" / "agents" / "bad.yaml"
    bad.write_text("description: ok\ntols:\n  - module: tool-bash\n")
    catalog = load_agent_catalog(paths_for(project_dir))
    assert list(catalog.agents) == ["good"]
    problem = catalog.problems[0]
    assert problem.file == bad and problem.line == 2 and "'tols'" in problem.message and "tools" in problem.fix
    with pytest.raises(ConfigError, match="defined but invalid"):
        agent_detail(catalog, "bad")


def test_invalid_profile_entry_names_the_profile_file_line_and_key_path(project_dir):
    profile = project_dir / ".amplifier" / "profiles" / "p.yaml"
    profile.parent.mkdir(parents=True)
    profile.write_text("agents:\n  helper:\n    description: x\n    instruction: [not, text]\n")
    catalog = load_agent_catalog(paths_for(project_dir), {"helper": {"description": "x",
                                                                     "instruction": ["not", "text"]}},
                                 [profile])
    problem = catalog.problems[0]
    assert problem.file == profile and problem.line == 4 and problem.key_path == "agents.helper.instruction"


def test_child_plan_merges_agent_modules_by_id_applies_exclude_and_sets_the_model():
    parent = {
        "session": {"orchestrator": {"module": "loop-basic"}, "context": {"module": "context-simple"}},
        "providers": [{"module": "provider-anthropic", "config": {"priority": 1, "max_retries": 3}}],
        "tools": [{"module": "tool-filesystem", "config": {"a": 1}}, {"module": "tool-bash"},
                  {"module": "tool-task"}],
        "agents": {"x": {}},
    }
    from amplifier_cli.plans.agents import AgentDefinition

    agent = AgentDefinition(
        name="reader", description="d",
        plan={"tools": [{"module": "tool-filesystem", "config": {"b": 2}}, {"module": "tool-web"}]},
        exclude={"tools": ["tool-bash"]}, model="small")
    child = plan_for_agent(parent, agent, exclude={"tools": ["tool-task"], "hooks": []})
    assert [t["module"] for t in child["tools"]] == ["tool-filesystem", "tool-web"]
    assert child["tools"][0]["config"] == {"a": 1, "b": 2}
    assert child["providers"][0]["config"] == {"priority": 1, "max_retries": 3, "default_model": "small"}
    assert "agents" not in child
    assert parent["tools"][1] == {"module": "tool-bash"}  # the parent's plan is not modified


def test_an_agents_own_selection_limits_what_it_may_delegate_to(project_dir):
    write_agent(project_dir, "a", "A")
    write_agent(project_dir, "b", "B")
    agents = load_agent_catalog(paths_for(project_dir)).agents
    assert list(select_agents(agents, ["b"])) == ["b"]
    assert select_agents(agents, "none") == {}


def test_the_parents_spawn_policy_decides_which_of_its_tools_sub_agents_inherit():
    """Upstream bundles' `spawn: {exclude_tools}` / `spawn: {tools}`; an agent that lists a tool itself keeps it."""
    from amplifier_cli.plans.agents import AgentDefinition

    tools = [{"module": "tool-filesystem"}, {"module": "tool-bash"}, {"module": "tool-task"}]
    plain = AgentDefinition(name="plain", description="d", plan={})
    excluding = {"tools": tools, "spawn": {"exclude_tools": ["tool-task"]}}
    assert [t["module"] for t in plan_for_agent(excluding, plain)["tools"]] == ["tool-filesystem", "tool-bash"]
    only = {"tools": tools, "spawn": {"tools": ["tool-filesystem"]}}
    assert [t["module"] for t in plan_for_agent(only, plain)["tools"]] == ["tool-filesystem"]
    delegating = AgentDefinition(name="lead", description="d", plan={"tools": [{"module": "tool-task"}]})
    assert [t["module"] for t in plan_for_agent(excluding, delegating)["tools"]] == [
        "tool-filesystem", "tool-bash", "tool-task"]
