"""`amplifier acp` driven by the ACP SDK's client (the editor's side): the handshake, sessions (new, load with
replay, list, resume, close) shared with the CLI's own session commands, and turns against the fake API."""

from __future__ import annotations

import acp
import pytest
from fakeapi import ToolCall, Turn, Usage

ANSWER = "The answer is 42."


@pytest.fixture
def editor_project(e2e_api):
    e2e_api.profile("acp", tools=("tool-filesystem", "tool-bash", "tool-todo"),
                    hooks=("hooks-streaming-ui", "hooks-logging", "hooks-redaction", "hooks-approval"))
    return e2e_api


async def test_initialize_answers_a_newer_version_with_ours_and_says_what_it_can(editor_project) -> None:
    async with editor_project.acp("-P", "acp") as editor:
        answer = await editor.conn.initialize(protocol_version=7)
        assert answer.protocol_version == 1
        assert answer.agent_info.name == "amplifier"
        capabilities = answer.agent_capabilities
        assert capabilities.load_session is True
        assert capabilities.prompt_capabilities.image and capabilities.prompt_capabilities.embedded_context
        assert not capabilities.prompt_capabilities.audio
        assert capabilities.mcp_capabilities.http and capabilities.mcp_capabilities.sse
        sessions = capabilities.session_capabilities
        assert sessions.list is not None and sessions.resume is not None and sessions.close is not None


async def test_a_prompt_streams_the_answer_and_ends_the_turn(editor_project) -> None:
    server = editor_project.server
    server.add(Turn(thinking="Let me think.", signature="sig-1", text_chunks=["The answer ", "is 42."],
                    usage=Usage(input_tokens=120, output_tokens=9)))
    async with editor_project.acp("-P", "acp") as editor:
        session_id = await editor.start(editor_project.project)
        response = await editor.say(session_id, "What is the answer?")
        assert response.stop_reason == "end_turn"
        assert response.usage.input_tokens == 120 and response.usage.output_tokens == 9
        client = editor.client
        assert client.agent_text(session_id) == ANSWER
        thoughts = "".join(u.content.text for u in client.of_kind("agent_thought_chunk"))
        assert thoughts == "Let me think."
        usage = client.of_kind("usage_update")[-1]
        assert usage.used == 129 and usage.size > 0 and usage.cost is not None and usage.cost.currency == "USD"
        assert client.of_kind("available_commands_update"), "the commands are listed after session/new"
    asked = [request for request in server.requests if request.path.endswith("/messages")]
    assert [request.last_user_text for request in asked] == ["What is the answer?"]
