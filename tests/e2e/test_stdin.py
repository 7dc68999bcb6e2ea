"""Piped stdin: appended to the prompt argument, or the whole prompt when there is no argument."""

from __future__ import annotations

from fakeapi import Turn


def test_piped_stdin_is_appended_to_the_prompt_argument(e2e_api) -> None:
    e2e_api.server.add(Turn(text="It is a haiku."))
    e2e_api.profile("fake-openai", provider="openai", tools=())
    result = e2e_api.run("run", "-P", "fake-openai", "what is this?", stdin="old pond\nfrog jumps in\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It is a haiku.\n"
    assert e2e_api.server.requests[0].last_user_text == "what is this?\n\nold pond\nfrog jumps in\n"


def test_piped_stdin_alone_is_the_prompt(e2e_api) -> None:
    e2e_api.server.add(Turn(text="Four."))
    e2e_api.profile("fake-openai", provider="openai", tools=())
    result = e2e_api.run("run", "-P", "fake-openai", "-o", "json", stdin="what is 2+2?\n")
    assert result.returncode == 0, result.stderr
    assert e2e_api.server.requests[0].last_user_text == "what is 2+2?\n"
    assert '"response": "Four."' in result.stdout
