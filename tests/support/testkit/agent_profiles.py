"""Helpers for sub-agent tests (tests/cli/plans/agents, sessions, commands): a test profile whose provider is
provider-anthropic pointed at the fake API server (dummy key), agent files, and request predicates that
tell the parent's requests from a child's by the system text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

DUMMY_KEY = "sk-ant-agents-test-dummy-000000000000"
PARENT_MARK = "PARENT-SYSTEM-MARK"
READER_MARK = "READER-AGENT-MARK"  # in the instruction of the `reader` agent the delegation tests write
FAST = {"max_retries": 0, "min_retry_delay": 0.01, "max_retry_delay": 0.02, "retry_jitter": False}


def write_profile(project: Path, name: str = "agents-test", *, tools: list[dict[str, Any]] | None = None,
                  hooks: list[dict[str, Any]] | None = None, orchestrator: str = "loop-basic",
                  **extra: Any) -> Path:
    document: dict[str, Any] = {
        "profile": {"name": name, "description": "sub-agent tests"},
        "session": {"orchestrator": {"module": orchestrator}, "context": {"module": "context-simple"}},
        "providers": [{"module": "provider-anthropic", "config": dict(FAST)}],
        "tools": tools if tools is not None else [{"module": "tool-task"}, {"module": "tool-filesystem"}],
        "hooks": hooks or [],
        "instruction": PARENT_MARK,
        **extra,
    }
    path = project / ".amplifier" / "profiles" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def write_agent(project: Path, name: str, instruction: str, *, frontmatter: dict[str, Any] | None = None) -> Path:
    """A Markdown agent file: YAML frontmatter + body (the instruction)."""
    meta = {"description": f"The {name} agent.", **(frontmatter or {})}
    path = project / ".amplifier" / "agents" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n{instruction}\n", encoding="utf-8")
    return path


def is_parent(request: Any) -> bool:
    return PARENT_MARK in request.system_text


def is_agent(mark: str):
    def predicate(request: Any) -> bool:
        return mark in request.system_text and PARENT_MARK not in request.system_text

    return predicate


def script_delegation(server: Any) -> None:
    """Parent -> task(reader) -> child read_file(data.txt) -> child answers "The code is 4711." -> parent answers
    "Your code: 4711." (the project holds a `reader` agent whose instruction has READER_MARK, and data.txt)."""
    from fakeapi import ToolCall, Turn

    child = is_agent(READER_MARK)
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "reader", "instruction": "read data.txt"})]),
               when=lambda r: is_parent(r) and r.last_user_text == "what is the code?")
    server.add(Turn(tool_calls=[ToolCall("read_file", {"file_path": "data.txt"})]),
               when=lambda r: child(r) and r.last_user_text == "read data.txt")
    server.add(Turn(text="The code is 4711."), when=lambda r: child(r) and "4711" in r.last_tool_result_text)
    server.add(Turn(text="Your code: 4711."),
               when=lambda r: is_parent(r) and "The code is 4711." in r.last_tool_result_text)
