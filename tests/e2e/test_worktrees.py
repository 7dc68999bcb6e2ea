"""Worktrees: `run --worktree NAME` works on a new branch in a checkout under the data dir, leaves the main checkout
untouched, and `worktree list` / `worktree remove` see it; an agent with `isolation: worktree` edits on its own
branch. Real git, the real file tools, the fake API."""

from __future__ import annotations

import json
from pathlib import Path

from fakeapi import ToolCall, Turn
from testkit.git_repos import run_git

from .conftest import E2E


def _repository(e2e_api: E2E) -> Path:
    project = e2e_api.project
    (project / "a.txt").write_text("original\n")
    (project / ".gitignore").write_text(".amplifier/\n")
    run_git("init", "--quiet", "--initial-branch=main", cwd=project)
    run_git("add", "-A", cwd=project)
    run_git("commit", "--quiet", "-m", "start", cwd=project)
    return project


def test_run_worktree_leaves_the_main_checkout_untouched_and_the_change_on_the_new_branch(e2e_api: E2E) -> None:
    project = _repository(e2e_api)
    e2e_api.profile("fake", tools=("tool-filesystem",))
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": "a.txt", "content": "changed\n"})]),
               when_last_user_contains="change a.txt")
    server.add(Turn(text="Changed it."), when_last_tool_result_contains="a.txt")
    result = e2e_api.run("run", "-P", "fake", "--approval", "allow", "--worktree=feature", "change a.txt")
    assert result.returncode == 0, result.stderr
    assert "Working in worktree 'feature'" in result.stderr and "amplifier/feature" in result.stderr
    assert "kept at" in result.stderr and "a.txt" in result.stderr
    assert (project / "a.txt").read_text() == "original\n"
    assert run_git("status", "--porcelain", cwd=project) == ""
    assert run_git("show", "amplifier/feature:a.txt", cwd=project) == "changed"
    worktree_dir = e2e_api.home / "data" / "worktrees"
    assert worktree_dir in next(worktree_dir.glob("*/feature")).parents  # in the data dir, not .amplifier/

    listing = e2e_api.run("worktree", "list", "--json")
    assert listing.returncode == 0, listing.stderr
    [row] = json.loads(listing.stdout)
    assert row["name"] == "feature" and row["branch"] == "amplifier/feature" and row["commits"] == 1
    (next(worktree_dir.glob("*/feature")) / "scratch.txt").write_text("not committed\n")
    refused = e2e_api.run("worktree", "remove", "feature")
    assert refused.returncode == 2 and "--force" in refused.stderr and "Traceback" not in refused.stderr
    removed = e2e_api.run("worktree", "remove", "--force", "feature")
    assert removed.returncode == 0, removed.stderr
    assert "branch amplifier/feature stays" in removed.stdout
    assert json.loads(e2e_api.run("worktree", "list", "--json").stdout) == []
    assert run_git("show", "amplifier/feature:a.txt", cwd=project) == "changed"  # the work stays on its branch


def test_a_worktree_with_no_change_is_removed_at_the_end(e2e_api: E2E) -> None:
    project = _repository(e2e_api)
    e2e_api.profile("fake", tools=("tool-filesystem",))
    e2e_api.server.add(Turn(text="Nothing to do."))
    result = e2e_api.run("run", "-P", "fake", "hello", "--worktree")
    assert result.returncode == 0, result.stderr
    assert "removed: nothing changed" in result.stderr
    assert json.loads(e2e_api.run("worktree", "list", "--json").stdout) == []
    assert "amplifier/" not in run_git("branch", "--list", cwd=project)


def test_bad_worktree_input_exits_2_with_one_clear_message(e2e_api: E2E) -> None:
    _repository(e2e_api)
    e2e_api.profile("fake", tools=("tool-filesystem",))
    for arguments, expected in ((["run", "-P", "fake", "--worktree=bad name", "hi"], "not a worktree name"),
                                (["worktree", "remove", "nothing-here"], "no worktree named 'nothing-here'"),
                                (["run", "--resume", "abc", "--worktree=x", "hi"], "a resumed one goes on where")):
        result = e2e_api.run(*arguments)
        assert result.returncode == 2, result.stderr
        assert expected in result.stderr and "Traceback" not in result.stderr
    (e2e_api.project / ".git").rename(e2e_api.project / "git-moved")
    result = e2e_api.run("run", "-P", "fake", "--worktree", "hi")
    assert result.returncode == 2 and "worktrees need one" in result.stderr


def test_an_isolated_agents_edit_lands_on_its_own_branch_and_its_result_names_it(e2e_api: E2E) -> None:
    project = _repository(e2e_api)
    agents = e2e_api.home / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "editor.md").write_text("---\ndescription: edits\nisolation: worktree\n---\nCHILD-MARK: edit files.\n")
    e2e_api.profile("fake", tools=("tool-filesystem", "tool-task"))
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "editor", "instruction": "change a.txt"}, id="call_t")]),
               when=lambda request: "CHILD-MARK" not in request.system_text and request.last_user_text == "go")
    server.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": "a.txt", "content": "by the child\n"})]),
               when=lambda request: "CHILD-MARK" in request.system_text and request.last_user_text)
    server.add(Turn(text="edited a.txt"), when=lambda request: "CHILD-MARK" in request.system_text)
    server.add(Turn(text="The editor is done."), when=lambda request: "amplifier/editor-" in
               request.last_tool_result_text)
    result = e2e_api.run("run", "-P", "fake", "--approval", "allow", "go")
    assert result.returncode == 0, result.stderr
    assert (project / "a.txt").read_text() == "original\n"  # the parent's checkout is untouched
    [branch] = run_git("for-each-ref", "--format=%(refname:short)", "refs/heads/amplifier/", cwd=project).splitlines()
    assert branch.startswith("amplifier/editor-")
    assert run_git("show", f"{branch}:a.txt", cwd=project) == "by the child"
    task_result = server.requests[-1].last_tool_result_text
    assert branch in task_result and "a.txt" in task_result


def test_checkpoints_and_rewind_work_inside_a_worktree(e2e_api: E2E) -> None:
    project = _repository(e2e_api)
    e2e_api.profile("fake", tools=("tool-filesystem",))
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": "a.txt", "content": "changed\n"})]),
               when_last_user_contains="change a.txt")
    server.add(Turn(text="Changed it."), when_last_tool_result_contains="a.txt")
    result = e2e_api.run("run", "-P", "fake", "--approval", "allow", "-o", "json", "--worktree=undo", "change a.txt")
    assert result.returncode == 0, result.stderr
    session_id = json.loads(result.stdout)["session_id"]
    [worktree] = (e2e_api.home / "data" / "worktrees").glob("*/undo")
    assert (worktree / "a.txt").read_text() == "changed\n"
    rewound = e2e_api.run("session", "rewind", session_id, "--to", "1", "--files-only", "--yes")
    assert rewound.returncode == 0, rewound.stderr
    assert "changed" in rewound.stdout  # the diff of what is undone
    assert (worktree / "a.txt").read_text() == "original\n"  # put back in the worktree
    assert (project / "a.txt").read_text() == "original\n"  # the main checkout never changed


def test_a_continued_isolated_agent_goes_on_in_its_own_worktree_and_branch(e2e_api: E2E) -> None:
    import re
    from typing import Any

    project = _repository(e2e_api)
    agents = e2e_api.home / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "editor.md").write_text("---\ndescription: edits\nisolation: worktree\n---\nCHILD-MARK: edit files.\n")
    e2e_api.profile("fake", tools=("tool-filesystem", "tool-task"))
    server = e2e_api.server

    def parent(request: Any) -> bool:
        return "CHILD-MARK" not in request.system_text

    def child(request: Any) -> bool:
        return "CHILD-MARK" in request.system_text

    def continue_it(request: Any) -> Turn:
        child_id = re.search(r'"session_id": "([^"]+)"', request.last_tool_result_text).group(1)
        return Turn(tool_calls=[ToolCall("task", {"session_id": child_id, "instruction": "now b.txt"}, id="call_2")])

    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "editor", "instruction": "now a.txt"}, id="call_1")]),
               when=lambda request: parent(request) and request.last_user_text == "go")
    server.add(continue_it, when=lambda request: parent(request) and "first edit done" in
               request.last_tool_result_text)
    server.add(Turn(text="all done"), when=lambda request: parent(request) and "second edit done" in
               request.last_tool_result_text)
    for name, answer in (("a.txt", "first edit done"), ("b.txt", "second edit done")):
        server.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": name, "content": "child\n"})]),
                   when=lambda request, name=name: child(request) and request.last_user_text == f"now {name}")
        server.add(Turn(text=answer), when=lambda request, name=name: child(request) and
                   name in request.last_tool_result_text)
    result = e2e_api.run("run", "-P", "fake", "--approval", "allow", "-o", "json", "go")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["response"] == "all done"
    [branch] = run_git("for-each-ref", "--format=%(refname:short)", "refs/heads/amplifier/", cwd=project).splitlines()
    changed = run_git("diff", "--name-only", f"main...{branch}", cwd=project).splitlines()
    assert sorted(changed) == ["a.txt", "b.txt"]  # both turns of the agent on one branch
    assert not (project / "b.txt").exists()
