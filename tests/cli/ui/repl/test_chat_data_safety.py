"""The chat does not lose or damage the user's data: `/save` asks before replacing a file and creates no folders
outside the project and the home directory; a chat opened and closed without a message leaves no session behind,
and `amplifier continue` resumes the last real conversation."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pexpect
from fakeapi import Turn

from amplifier_cli.sessions.store import SessionMetadata

from .conftest import amplifier_binary


def test_save_asks_before_overwriting_and_creates_no_folders_outside_the_project(
        spawn_chat, fake_api, chat_project: Path, tmp_path: Path) -> None:
    fake_api.add(Turn(text="the-reply"), when_last_user_contains="hello")
    readme = chat_project / "README.md"
    readme.write_text("# The project's own README\n")
    chat = spawn_chat()
    chat.ready()
    chat.exchange("hello", "the-reply")

    chat.send_line("/save README.md")
    chat.expect("exists. Replace it")
    chat.child.send("n")
    chat.expect("nothing saved")
    chat.prompt()
    assert readme.read_text() == "# The project's own README\n"

    chat.send_line("/save README.md")
    chat.expect("exists. Replace it")
    chat.child.send("y")
    chat.expect("Saved the conversation")
    chat.prompt()
    assert "## You" in readme.read_text() and "the-reply" in readme.read_text()

    outside = tmp_path / "outside-the-project"
    chat.send_line(f"/save {outside}/deeper/chat.md")
    refused = chat.expect("give another path")
    chat.prompt()
    assert "Not saved" in refused and not outside.exists()

    chat.send_line("/save notes/inside/chat.md")  # folders inside the project are made as before
    chat.expect("Saved the conversation")
    chat.prompt()
    assert (chat_project / "notes" / "inside" / "chat.md").is_file()
    assert chat.exit() == 0


def test_an_empty_chat_leaves_no_session_and_continue_resumes_the_last_real_one(
        spawn_chat, fake_api, chat_project: Path, amplifier_home: Path) -> None:
    fake_api.add(Turn(text="first-answer"), when_last_user_contains="real question")
    fake_api.add(Turn(text="continued-answer"), when_last_user_contains="follow-up")
    sessions = amplifier_home / "data" / "sessions"
    chat = spawn_chat()
    chat.ready()
    chat.exchange("real question", "first-answer")
    assert chat.exit() == 0
    [real] = [path for path in sessions.iterdir() if path.is_dir()]

    empty = spawn_chat()  # opened and closed without a message
    empty.ready()
    empty.send_line("/exit")
    assert "saved. Resume with" not in empty.expect(pexpect.EOF)
    empty.child.close()
    assert empty.child.exitstatus == 0
    assert [path for path in sessions.iterdir() if path.is_dir()] == [real]

    # an empty session left by a crash (or an older version) is newer, but is not the one to continue
    stamp = "2999-01-01T00:00:00+00:00"
    crashed = SessionMetadata(session_id="00000000-0000-4000-8000-000000000000", created=stamp, updated=stamp,
                              cwd=str(chat_project.resolve()), project=str(chat_project.resolve()))
    (sessions / crashed.session_id).mkdir()
    (sessions / crashed.session_id / "metadata.json").write_text(json.dumps(crashed.model_dump(mode="json")))

    result = subprocess.run([amplifier_binary(), "continue", "follow-up"], cwd=chat_project, env=dict(os.environ),
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "continued-answer\n"
    assert real.name[:8] in result.stderr
    assert fake_api.requests[-1].user_texts == ["real question", "follow-up"]
