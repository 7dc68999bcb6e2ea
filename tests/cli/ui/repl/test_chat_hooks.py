"""Hooks in the real chat: leaving it runs SessionEnd with Claude Code's `prompt_input_exit`; a prompt nobody sends
after a turn runs Notification `idle_prompt` while the chat waits."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

from fakeapi import Turn

from .conftest import PROFILE

DUMP_STDIN = f"{sys.executable} -c 'import sys; print(sys.stdin.read())'"


def with_hooks(project: Path, hooks: dict[str, Any], config: str = "{}") -> None:
    """The chat's profile with hook-shell (``config`` as its YAML config) and this hooks file, trusted as written
    (the user's own project)."""
    profile = project / ".amplifier" / "profiles" / "chat-test.yaml"
    profile.write_text(PROFILE.replace("  - module: hooks-streaming-ui\n", "  - module: hooks-streaming-ui\n"
                                       f"  - module: hook-shell\n    config: {config}\n"), encoding="utf-8")
    path = project / ".amplifier" / "hooks" / "hooks.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    from testkit.trust import trust_project_now

    trust_project_now(project)


def test_leaving_the_chat_runs_session_end_hooks_with_reason_prompt_input_exit(spawn_chat, chat_project: Path) -> None:
    record = chat_project / "ended.jsonl"
    with_hooks(chat_project, {"SessionEnd": [{"hooks": [{"type": "command", "command": f"{DUMP_STDIN} >> {record}"}]}]})
    chat = spawn_chat()
    chat.ready()
    assert chat.exit() == 0
    (ended,) = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    assert ended["hook_event_name"] == "SessionEnd" and ended["reason"] == "prompt_input_exit"


def test_switching_sessions_ends_the_one_left_with_reason_resume(spawn_chat, chat_project: Path, fake_api) -> None:
    record = chat_project / "ended.jsonl"
    with_hooks(chat_project, {"SessionEnd": [{"hooks": [{"type": "command", "command": f"{DUMP_STDIN} >> {record}"}]}]})
    fake_api.add(Turn(text="first-answer"))
    chat = spawn_chat()
    chat.ready()
    chat.exchange("hello", "first-answer")
    chat.send_line("/fork")
    chat.expect("now in the fork")
    chat.ready()  # the fork is open (a session still opening at /exit never started, so it has no end)
    assert chat.exit() == 0
    ended = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    assert [event["reason"] for event in ended] == ["resume", "prompt_input_exit"]
    assert ended[0]["session_id"] != ended[1]["session_id"]


def test_an_idle_chat_after_a_turn_runs_notification_idle_prompt(spawn_chat, chat_project: Path, fake_api) -> None:
    fifo = chat_project / "idle.fifo"
    os.mkfifo(fifo)
    with_hooks(chat_project, {"Notification": [{"matcher": "idle_prompt", "hooks": [
        {"type": "command", "command": f"{DUMP_STDIN} > {fifo}"}]}]}, config="{idle_seconds: 0.2}")
    fake_api.add(Turn(text="first-answer"))
    heard: list[str] = []
    chat = spawn_chat()
    chat.ready()
    chat.exchange("hello", "first-answer")
    reader = threading.Thread(target=lambda: heard.append(fifo.read_text()), daemon=True)
    reader.start()  # opening the FIFO waits for the hook to write: no timing involved
    reader.join(timeout=30)
    assert heard, "the idle Notification hook never ran"
    notice = json.loads(heard[0])
    assert notice["hook_event_name"] == "Notification" and notice["notification_type"] == "idle_prompt"
    assert chat.exit() == 0
