"""Commands people type in the chat (/compact, /cost, /diff), `amplifier "prompt"`, and the keyless demo chat:
the installed `amplifier` in a pty."""

from __future__ import annotations


def test_demo_profile_answers_three_messages_in_a_row(spawn_chat, chat_project) -> None:
    chat = spawn_chat("-P", "demo")  # the bundled scripted profile: no server, no key
    chat.ready()
    chat.send_line("write the demo file")
    chat.expect("I wrote amplifier-demo.txt")
    chat.prompt()
    chat.send_line("second question")
    assert "no turn left" not in chat.expect('You said: "second question"')
    chat.prompt()
    chat.send_line("third question")
    chat.expect('You said: "third question"')
    chat.prompt()
    assert chat.exit() == 0
    assert (chat_project / "amplifier-demo.txt").exists()
