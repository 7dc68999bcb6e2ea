"""A project holding what Claude Code users already have: CLAUDE.md, a `.claude/agents/reviewer.md` in Claude
Code's format, `.claude/commands/` and `.claude/skills/`. CLAUDE.md (plain text) always loads; the agent, the
command and the skill are ignored until the user trusts the project, then work with no change. Skills reach the
model as names and descriptions only; `load_skill` returns the body and the skill's file is readable. `run --mode
plan` refuses a write headless."""

from __future__ import annotations

import json
from pathlib import Path

from fakeapi import ToolCall, Turn

REVIEWER = """\
---
name: reviewer
description: Reviews code changes for bugs. Use after writing code.
tools: Read, Grep, Glob
model: inherit
---
You review code and report problems.
"""


def build_claude_project(project: Path) -> Path:
    (project / "CLAUDE.md").write_text("CLAUDE-HOUSE-RULE: answer briefly.\n", encoding="utf-8")
    files = {
        ".claude/agents/reviewer.md": REVIEWER,
        ".claude/commands/review.md": "---\ndescription: Review a file\n---\nREVIEW-REQUEST for $ARGUMENTS\n",
        ".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: How this project deploys.\n---\n"
                                          "DEPLOY-BODY: follow reference/steps.md.\n",
        ".claude/skills/deploy/reference/steps.md": "STEPS-MARKER: make deploy\n",
    }
    for relative, text in files.items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(text, encoding="utf-8")
    return project / ".claude" / "skills" / "deploy"


def test_claude_code_files_wait_for_trust_then_work_unchanged(e2e_api):
    e2e_api.trust_project = False  # a repository the user did not write
    e2e_api.profile("mine", user=True, tools=("tool-filesystem", "tool-task", "tool-skills"))
    skill_dir = build_claude_project(e2e_api.project)
    server = e2e_api.server

    assert "reviewer" not in e2e_api.run("agents", "list", "-P", "mine").stdout
    refused = e2e_api.run("run", "-P", "mine", "/review app.py")
    assert refused.returncode == 2 and "amplifier trust" in refused.stderr and "Traceback" not in refused.stderr
    server.add(Turn(text="untrusted-answer"), when_last_user_contains="hello")
    untrusted = e2e_api.run("run", "-P", "mine", "hello")
    assert untrusted.returncode == 0, untrusted.stderr
    first = server.requests[-1]
    assert "CLAUDE-HOUSE-RULE" in first.system_text  # plain text loads without trust
    assert "deploy" not in first.system_text and "load_skill" in first.tool_names

    trusted = e2e_api.run("trust", "--yes")
    assert trusted.returncode == 0, trusted.stderr
    listed = e2e_api.run("agents", "list", "-P", "mine")
    assert listed.returncode == 0 and "reviewer" in listed.stdout and "Reviews code changes" in listed.stdout

    server.add(Turn(tool_calls=[ToolCall("load_skill", {"skill_name": "deploy"})]),
               when_last_user_contains="REVIEW-REQUEST for app.py")
    server.add(Turn(tool_calls=[ToolCall("read_file", {"file_path": str(skill_dir / "reference" / "steps.md")})]),
               when_last_tool_result_contains="DEPLOY-BODY")
    server.add(Turn(text="reviewed-with-skill"), when_last_tool_result_contains="STEPS-MARKER")
    result = e2e_api.run("run", "-P", "mine", "-o", "json", "/review app.py")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["response"] == "reviewed-with-skill"
    requests = server.requests[-3:]
    assert "CLAUDE-HOUSE-RULE" in requests[0].system_text
    assert "- deploy: How this project deploys." in requests[0].system_text
    assert "DEPLOY-BODY" not in requests[0].system_text  # the body only arrives when the model loads it
    assert "DEPLOY-BODY" in requests[1].last_tool_result_text
    assert "reviewer: Reviews code changes for bugs." in json.dumps(requests[0].json)


def test_run_mode_plan_refuses_a_write_headless(e2e_api):
    e2e_api.profile("mine", tools=("tool-filesystem",))
    e2e_api.server.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": "out.txt", "content": "x"})]),
                       when_last_user_contains="write it")
    e2e_api.server.add(Turn(text="refused-as-planned"), when_last_tool_result_contains="plan mode")
    result = e2e_api.run("run", "-P", "mine", "--mode", "plan", "write it")
    assert result.returncode == 0, result.stderr
    assert "refused-as-planned" in result.stdout and not (e2e_api.project / "out.txt").exists()
    bad = e2e_api.run("run", "-P", "mine", "--mode", "yolo", "write it")
    assert bad.returncode == 2 and "--mode must be one of normal, plan" in bad.stderr
