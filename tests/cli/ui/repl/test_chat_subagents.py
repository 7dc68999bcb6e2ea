"""Sub-agents in the chat, in a real terminal: while children wait on the model, the working indicator lists each
one (agent, elapsed, what it does) under its line; the list is gone with the indicator once the turn ends."""

from __future__ import annotations

import threading
from pathlib import Path

import pexpect
from fakeapi import ToolCall, Turn

from .conftest import PROFILE, PROMPT


def test_running_children_are_listed_under_the_working_indicator(spawn_chat, fake_api, chat_project: Path) -> None:
    from testkit.trust import trust_project_now

    profiles = chat_project / ".amplifier" / "profiles"
    (profiles / "chat-test.yaml").write_text(PROFILE.replace("  - module: tool-bash\n",
                                                             "  - module: tool-bash\n  - module: tool-task\n"))
    agents = chat_project / ".amplifier" / "agents"
    agents.mkdir()
    (agents / "helper.md").write_text("---\ndescription: helps\n---\nCHILD-MARK: do the job.\n")
    trust_project_now(chat_project)  # the project changed: trust what it ships now

    def child(request) -> bool:
        return "CHILD-MARK" in request.system_text

    fake_api.add(Turn(tool_calls=[ToolCall("task", {"agent": "helper", "instruction": f"job {index}"},
                                           id=f"toolu_{index}") for index in range(2)]),
                 when=lambda request: not child(request) and request.last_user_text == "delegate twice")
    gate = threading.Event()
    fake_api.add(Turn(text="child answer"), when=child, gate=gate, times=2)
    fake_api.add(Turn(text="both-children-done"), when=lambda request: not child(request))
    chat = spawn_chat()
    chat.ready()
    chat.send_line("delegate twice")
    try:
        fake_api.wait_for_requests(3, timeout=20)  # both children wait on the model
        chat.child.expect(r"⎿ helper · \d+s · thinking\x1b\[K\r?\n  ⎿ helper · \d+s · thinking", timeout=20)
    finally:
        gate.set()
    chat.child.expect_exact("both-children-done")
    after = chat.expect(PROMPT)
    assert "⎿ helper · " not in after
    assert chat.exit() == 0


def test_the_chat_opens_in_a_new_worktree_and_removes_it_when_nothing_changed(spawn_chat, fake_api,
                                                                             chat_project: Path) -> None:
    from testkit.git_repos import run_git

    (chat_project / ".gitignore").write_text(".amplifier/\n")
    (chat_project / "a.txt").write_text("original\n")
    run_git("init", "--quiet", "--initial-branch=main", cwd=chat_project)
    run_git("add", "-A", cwd=chat_project)
    run_git("commit", "--quiet", "-m", "start", cwd=chat_project)
    fake_api.add(Turn(text="answered-in-the-worktree"))
    chat = spawn_chat("--worktree=chat-wt")
    said = chat.expect("· session ")
    assert "Working in worktree 'chat-wt'" in said and "amplifier/chat-wt" in said
    chat.prompt()
    chat.exchange("hello", "answered-in-the-worktree")
    chat.send_line("/exit")
    chat.expect("removed: nothing changed")
    chat.child.expect(pexpect.EOF, timeout=20)
    assert "amplifier/" not in run_git("branch", "--list", cwd=chat_project)
