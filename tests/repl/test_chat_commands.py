"""Commands people type in the chat (/compact, /cost, /diff), `amplifier "prompt"`, and the keyless demo chat:
the installed `amplifier` in a pty."""

from __future__ import annotations

from fakeapi import Turn


def test_a_prompt_argument_opens_the_chat_with_it_as_the_first_message(spawn_chat, fake_api) -> None:
    fake_api.add(Turn(text="hello-back"), when_last_user_contains="hi")
    fake_api.add(Turn(text="second-answer"), when_last_user_contains="next")
    chat = spawn_chat("hi")  # `amplifier "hi"` in a terminal, as `claude "hi"`
    chat.expect("❯ hi")
    chat.expect("hello-back", timeout=90)  # the SDK's first stream builds its models: slow on a busy machine
    chat.prompt()  # the chat waits for the next message
    chat.send_line("next one")
    chat.expect("second-answer")
    chat.prompt()
    assert chat.exit() == 0
    assert fake_api.requests[-1].user_texts == ["hi", "next one"]


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
