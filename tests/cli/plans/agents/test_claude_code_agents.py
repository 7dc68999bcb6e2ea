"""Sub-agent files written the way Claude Code writes them: `.claude/agents/*.md` with `tools` as tool names (a
list or a comma-separated string) load once the project is trusted, `tools` limits which of the parent's tools
the sub-agent gets, and a tool name the session does not have is a warning naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakeapi import ToolCall, Turn
from testkit.agent_profiles import is_agent, is_parent, write_profile
from testkit.trust import trust_project_now

from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.config.trust import project_trust, project_trusted
from amplifier_cli.plans.agents import load_agent_catalog
from amplifier_cli.sessions.factory import SessionRequest, open_session

pytestmark = pytest.mark.untrusted  # these tests trust the project themselves, when they mean to

REVIEWER = """\
---
name: reviewer
description: Reviews code changes for bugs. Use after writing code.
tools: Read, Grep, NotebookEdit
model: inherit
color: purple
---
REVIEWER-MARK: you review code and report problems.
"""


def write_claude_agent(project: Path, name: str, text: str) -> Path:
    path = project / ".claude" / "agents" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_claude_code_agent_loads_only_after_trust_with_its_tool_names(project_dir):
    write_claude_agent(project_dir, "reviewer", REVIEWER)
    write_claude_agent(project_dir, "lister", "---\nname: lister\ndescription: Lists.\ntools: [read_file, glob]\n"
                                              "---\nList files.\n")
    assert load_agent_catalog(AmplifierPaths.discover(cwd=project_dir)).agents == {}
    trust_project_now(project_dir)
    catalog = load_agent_catalog(AmplifierPaths.discover(cwd=project_dir))
    assert catalog.problems == []
    reviewer, lister = catalog.agents["reviewer"], catalog.agents["lister"]
    assert reviewer.tool_names == ["read_file", "grep", "NotebookEdit"] and reviewer.model is None
    assert reviewer.instruction == "REVIEWER-MARK: you review code and report problems."
    assert reviewer.origin == "project" and reviewer.plan == {}
    assert lister.tool_names == ["read_file", "glob"]


def test_a_changed_claude_code_agent_untrusts_the_project(project_dir):
    path = write_claude_agent(project_dir, "reviewer", REVIEWER)
    trust_project_now(project_dir)
    assert project_trusted(AmplifierPaths.discover(cwd=project_dir))
    path.write_text(REVIEWER.replace("tools: Read, Grep, NotebookEdit", "tools: Bash"), encoding="utf-8")
    paths = AmplifierPaths.discover(cwd=project_dir)
    assert not project_trusted(paths)
    assert "Claude Code agent 'reviewer.md'" in [item.key for item in project_trust(paths).change().changed]


async def test_tools_limits_the_sub_agents_tools_and_an_unknown_name_is_a_warning(project_dir, anthropic_env,
                                                                                   fake_api):
    write_profile(project_dir, tools=[{"module": "tool-task"}, {"module": "tool-filesystem"},
                                      {"module": "tool-todo"}])
    agent_file = write_claude_agent(project_dir, "reviewer", REVIEWER)
    trust_project_now(project_dir)
    fake_api.add(Turn(tool_calls=[ToolCall("task", {"agent": "reviewer", "instruction": "review it"})]),
                 when=lambda r: is_parent(r) and r.last_user_text == "delegate")
    fake_api.add(Turn(text="looks fine"), when=is_agent("REVIEWER-MARK"))
    fake_api.add(Turn(text="reviewed"), when=lambda r: is_parent(r) and "looks fine" in r.last_tool_result_text)
    live = await open_session(SessionRequest(profile="agents-test"), paths=AmplifierPaths.discover())
    try:
        warning = next(line for line in live.warnings if "agent 'reviewer'" in line)
        assert str(agent_file) in warning and "NotebookEdit is not a tool of this session" in warning
        assert await live.execute("delegate") == "reviewed"
    finally:
        await live.close()
    parent_request, child_request = fake_api.requests[0], fake_api.requests[1]
    assert {"task", "todo", "write_file"} <= set(parent_request.tool_names)
    assert sorted(child_request.tool_names) == ["grep", "read_file"]
