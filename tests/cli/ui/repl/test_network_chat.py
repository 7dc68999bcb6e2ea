"""A sandboxed command that reaches for a host not on `sandbox.network.allow` is asked about in the chat, by host,
and goes through once allowed; refused, the model reads the host's name. The installed `amplifier` in a pty, a
real HTTP server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakeapi import ToolCall, Turn
from testkit.loopback_http import text_server


@pytest.fixture
def port() -> Iterator[int]:
    with text_server(b"reached-the-server\n") as port:
        yield port


def test_an_unlisted_host_is_asked_in_the_chat_and_allowed_or_refused(spawn_chat, fake_api, chat_project,
                                                                      port: int) -> None:
    fetch = f"curl -fsS -m 20 http://localhost:{port}/"
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": fetch})]), when_last_user_contains="fetch", times=2)
    fake_api.add(Turn(text="model-saw-page"), when_last_tool_result_contains="reached-the-server")
    fake_api.add(Turn(text="model-saw-refusal"), when_last_tool_result_contains="network: refused localhost")
    chat = spawn_chat()
    chat.ready()

    chat.send_line("fetch it")
    chat.expect("choose 1-4")  # running the command at all: hooks-approval's question
    chat.child.send("1")
    shown = chat.expect("choose 1-3")  # then where it connects: the proxy's question
    assert f"A sandboxed command wants to reach localhost:{port}" in shown and "[2] Always allow" in shown
    chat.child.send("1")
    chat.expect("model-saw-page")
    chat.prompt()

    chat.send_line("fetch again")
    chat.expect("choose 1-4")
    chat.child.send("1")
    chat.expect("choose 1-3")  # "once" was for that command only
    chat.child.send("3")
    chat.expect("model-saw-refusal")
    chat.prompt()
    assert chat.exit() == 0
