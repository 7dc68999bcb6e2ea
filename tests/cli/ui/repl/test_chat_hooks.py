"""The chat tells hooks why the session ends: leaving it runs SessionEnd with Claude Code's `prompt_input_exit`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .conftest import PROFILE


def test_leaving_the_chat_runs_session_end_hooks_with_reason_prompt_input_exit(spawn_chat, chat_project: Path) -> None:
    profile = chat_project / ".amplifier" / "profiles" / "chat-test.yaml"
    profile.write_text(PROFILE.replace("  - module: hooks-streaming-ui\n",
                                       "  - module: hooks-streaming-ui\n  - module: hook-shell\n"), encoding="utf-8")
    record = chat_project / "ended.jsonl"
    hooks = chat_project / ".amplifier" / "hooks" / "hooks.json"
    hooks.parent.mkdir(parents=True)
    hooks.write_text(json.dumps({"hooks": {"SessionEnd": [{"hooks": [
        {"type": "command", "command": f"{sys.executable} -c 'import sys; print(sys.stdin.read())' >> {record}"}]}]}}))
    from testkit.trust import trust_project_now

    trust_project_now(chat_project)  # the hooks file is the user's own: trusted as written
    chat = spawn_chat()
    chat.ready()
    assert chat.exit() == 0
    (ended,) = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    assert ended["hook_event_name"] == "SessionEnd" and ended["reason"] == "prompt_input_exit"
