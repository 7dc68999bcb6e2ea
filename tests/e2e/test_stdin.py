"""Piped stdin: appended to the prompt argument, or the whole prompt when there is no argument. The scripted
model answers only when its pattern matches the exact prompt it received."""

from __future__ import annotations

import json


def test_piped_stdin_is_appended_to_the_prompt_argument(e2e) -> None:
    e2e.profile("scripted", provider="scripted", tools=(),
                script=[{"text": "It is a haiku.", "match": "^what is this\\?\n\nold pond\nfrog jumps in\n$"}])
    result = e2e.run("run", "-P", "scripted", "what is this?", stdin="old pond\nfrog jumps in\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It is a haiku.\n"
    user = [message for message in e2e.transcript(e2e.only_session()) if message["role"] == "user"]
    assert user == [{"role": "user", "content": "what is this?\n\nold pond\nfrog jumps in\n"}]


def test_piped_stdin_alone_is_the_prompt(e2e) -> None:
    e2e.profile("scripted", provider="scripted", tools=(), script=[{"text": "Four.", "match": "^what is 2\\+2\\?\n$"}])
    result = e2e.run("run", "-P", "scripted", "-o", "json", stdin="what is 2+2?\n")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["response"] == "Four."


def test_bytes_that_are_not_utf8_in_the_argument_or_stdin_become_replacement_characters(e2e) -> None:
    import subprocess

    from .conftest import installed_amplifier

    e2e.profile("scripted", provider="scripted", tools=(), script=[{"text": "Got it."}])
    e2e.trust_now()
    result = subprocess.run(
        [*installed_amplifier(), "run", "-P", "scripted", b"caf\xe9 \xff"],
        input=b"piped \xfe bytes\n", capture_output=True, cwd=e2e.project, env=e2e.env, timeout=60, check=False,
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    assert result.stdout == b"Got it.\n"
    user = [message for message in e2e.transcript(e2e.only_session()) if message["role"] == "user"]
    assert user == [{"role": "user", "content": "caf\ufffd \ufffd\n\npiped \ufffd bytes\n"}]


def test_chat_options_on_amplifier_itself_run_a_piped_prompt_once(e2e) -> None:
    result = e2e.run("-P", "demo", stdin="Write a greeting file")
    assert result.returncode == 0, result.stderr
    assert (e2e.project / "amplifier-demo.txt").exists()
    assert len(e2e.session_dirs()) == 1
