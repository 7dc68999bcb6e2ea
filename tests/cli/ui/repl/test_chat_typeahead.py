"""Typing ahead in a real terminal: a message typed, Enter included, while the answer is still streaming is sent by
that Enter once the prompt is back (between prompts the terminal is cooked; its ICRNL would have turned the Enter
into Ctrl-J, a new line, and the message would have waited for a second Enter). `!cmd` programs still get the
Enter key as a line end."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from fakeapi import Turn

from .conftest import wait_until_read


def test_a_message_typed_while_the_answer_streams_is_sent_by_its_own_enter(spawn_chat, fake_api) -> None:
    rest = threading.Event()
    fake_api.add(Turn(text_chunks=["first-part ", "first-rest"], chunk_gate=rest), when_last_user_contains="one")
    fake_api.add(Turn(text="answer-two"), when_last_user_contains="two")
    chat = spawn_chat()
    chat.ready()
    chat.send_line("question one")
    chat.expect("first-part")  # the turn runs: the prompt is not reading the terminal
    chat.send_line("question two")  # typed ahead: in the terminal's input queue once written
    rest.set()
    chat.expect("first-rest")
    chat.expect("answer-two")
    chat.prompt()
    assert fake_api.requests[-1].last_user_text == "question two"


def test_a_shell_command_reading_a_line_gets_the_enter_key(spawn_chat, fake_api, chat_project: Path) -> None:
    started = chat_project / "started.fifo"
    os.mkfifo(started)
    chat = spawn_chat()
    chat.ready()
    chat.send_line('!echo go > started.fifo && read -r line && echo "got-[$line]"')
    wait_until_read(started)  # the command runs: the terminal is handed over
    chat.send_line("typed-for-read")
    chat.expect("got-[typed-for-read]")
    chat.prompt()
