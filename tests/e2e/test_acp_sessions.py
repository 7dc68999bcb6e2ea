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
        assert await client.wait_for("available_commands_update"), "the commands are listed after session/new"
    asked = [request for request in server.requests if request.path.endswith("/messages")]
    assert [request.last_user_text for request in asked] == ["What is the answer?"]


async def test_session_load_replays_the_conversation_then_continues_it(editor_project) -> None:
    server = editor_project.server
    server.add(Turn(tool_calls=[ToolCall("read_file", {"file_path": "notes.txt"}, id="toolu_read")]),
               when_last_user_contains="notes")
    server.add(Turn(tool_calls=[ToolCall("edit_file", {"file_path": "notes.txt", "old_string": "hello",
                                                       "new_string": "hello, world"}, id="toolu_edit")]),
               when_last_tool_result_contains="hello")
    server.add(Turn(text="It says hello."), when_last_tool_result_contains="Edited")
    server.add(Turn(text="Still here."), when_last_user_contains="again")
    (editor_project.project / "notes.txt").write_text("hello\n")
    async with editor_project.acp("-P", "acp", "--approval", "allow") as editor:
        session_id = await editor.start(editor_project.project)
        assert (await editor.say(session_id, "What do my notes say?")).stop_reason == "end_turn"
    async with editor_project.acp("-P", "acp") as editor:
        await editor.conn.initialize(protocol_version=1)
        await editor.conn.load_session(cwd=str(editor_project.project), session_id=session_id, mcp_servers=[])
        client = editor.client
        kinds = [update.session_update for _, update in client.updates]
        first_agent = kinds.index("agent_message_chunk")
        assert kinds.index("user_message_chunk") < kinds.index("tool_call") < first_agent
        assert client.of_kind("user_message_chunk")[0].content.text == "What do my notes say?"
        call = client.of_kind("tool_call")[0]
        assert call.tool_call_id == "toolu_read" and call.kind == "read" and call.title == "Read notes.txt"
        result = client.of_kind("tool_call_update")[0]
        assert result.tool_call_id == "toolu_read" and "hello" in result.content[0].content.text
        edit = client.of_kind("tool_call")[1]
        assert edit.kind == "edit" and (edit.content[0].old_text, edit.content[0].new_text) == ("hello", "hello, world")
        assert client.of_kind("tool_call_update")[1].content is None  # the diff stays the edit's content
        assert client.agent_text() == "It says hello."
        client.clear()
        assert (await editor.say(session_id, "again?")).stop_reason == "end_turn"
        assert client.agent_text() == "Still here."
    last = [r for r in server.requests if r.path.endswith("/messages")][-1]
    assert last.user_texts[0] == "What do my notes say?"  # the loaded session continued the same conversation


async def test_editor_sessions_are_the_clis_sessions_and_the_other_way_round(editor_project) -> None:
    server = editor_project.server
    server.add(Turn(text="From the editor."), when_last_user_contains="editor")
    server.add(Turn(text="From the terminal."), when_last_user_contains="terminal", repeat=True)
    async with editor_project.acp("-P", "acp") as editor:
        editor_session = await editor.start(editor_project.project)
        await editor.say(editor_session, "hello from the editor")
    listed = editor_project.run("session", "list")
    assert editor_session[:8] in listed.stdout, listed.stdout + listed.stderr
    run = editor_project.run("run", "-P", "acp", "-o", "json", "hello from the terminal")
    import json

    terminal_session = json.loads(run.stdout)["session_id"]
    async with editor_project.acp("-P", "acp") as editor:
        await editor.conn.initialize(protocol_version=1)
        sessions = await editor.conn.list_sessions(cwd=str(editor_project.project))
        ids = [info.session_id for info in sessions.sessions]
        assert ids[:2] == [terminal_session, editor_session]  # most recent first
        titles = {info.session_id: info.title for info in sessions.sessions}
        assert titles[editor_session] == "hello from the editor"
        elsewhere = await editor.conn.list_sessions(cwd=str(editor_project.home))
        assert elsewhere.sessions == []
    resumed = editor_project.run("run", "-P", "acp", "--resume", editor_session[:8], "-o", "json",
                                 "hello again from the terminal")
    assert resumed.returncode == 0, resumed.stderr
    asked = [r for r in server.requests if r.path.endswith("/messages")][-1]
    assert asked.user_texts[0] == "hello from the editor"


async def test_resume_continues_without_replay_and_close_saves(editor_project) -> None:
    server = editor_project.server
    server.add(Turn(text="First."), when_last_user_contains="one")
    server.add(Turn(text="Second."), when_last_user_contains="two")
    async with editor_project.acp("-P", "acp") as editor:
        session_id = await editor.start(editor_project.project)
        await editor.say(session_id, "turn one")
        await editor.conn.close_session(session_id=session_id)
        with pytest.raises(acp.RequestError):
            await editor.say(session_id, "after close")
        editor.client.clear()
        await editor.conn.resume_session(session_id=session_id, cwd=str(editor_project.project), mcp_servers=[])
        assert not editor.client.of_kind("agent_message_chunk"), "resume does not replay"
        assert (await editor.say(session_id, "turn two")).stop_reason == "end_turn"
        assert editor.client.agent_text() == "Second."
    asked = [r for r in server.requests if r.path.endswith("/messages")][-1]
    assert asked.user_texts == ["turn one", "turn two"]


async def test_two_sessions_in_one_process_do_not_mix(editor_project) -> None:
    server = editor_project.server
    server.add(Turn(text_chunks=["apple ", "apple"]), when_last_user_contains="fruit")
    server.add(Turn(text_chunks=["carrot ", "carrot"]), when_last_user_contains="vegetable")
    async with editor_project.acp("-P", "acp") as editor:
        first = await editor.start(editor_project.project)
        second = (await editor.conn.new_session(cwd=str(editor_project.project), mcp_servers=[])).session_id
        assert first != second
        import asyncio

        answers = await asyncio.gather(editor.say(first, "a fruit"), editor.say(second, "a vegetable"))
        assert [answer.stop_reason for answer in answers] == ["end_turn", "end_turn"]
        assert editor.client.agent_text(first) == "apple apple"
        assert editor.client.agent_text(second) == "carrot carrot"


async def test_closing_stdin_ends_the_process_with_the_session_saved(editor_project) -> None:
    editor_project.server.add(Turn(text="Saved."))
    async with editor_project.acp("-P", "acp") as editor:
        session_id = await editor.start(editor_project.project)
        await editor.say(session_id, "keep this")
        process = editor.process
        process.stdin.close()
        import asyncio

        assert await asyncio.wait_for(process.wait(), 30) == 0
    shown = editor_project.run("session", "show", session_id[:8])
    assert "keep this" in shown.stdout and "Saved." in shown.stdout


async def test_a_broken_profile_is_an_error_naming_it_and_the_agent_keeps_serving(editor_project) -> None:
    editor_project.server.add(Turn(text="Fine here."))
    async with editor_project.acp("-P", "no-such-profile") as editor:
        await editor.conn.initialize(protocol_version=1)
        with pytest.raises(acp.RequestError) as failed:
            await editor.conn.new_session(cwd=str(editor_project.project), mcp_servers=[])
        assert "no-such-profile" in str(failed.value)
        listed = await editor.conn.list_sessions(cwd=str(editor_project.project))
        assert listed.sessions == []  # nothing half-made was kept


async def test_a_retried_request_is_explained_and_the_session_gets_its_title(editor_project) -> None:
    from fakeapi import Fault

    editor_project.server.add(Fault.status(529))
    editor_project.server.add(Turn(text="After the retry."))
    async with editor_project.acp("-P", "acp") as editor:
        session_id = await editor.start(editor_project.project)
        assert (await editor.say(session_id, "Name this   session\nplease")).stop_reason == "end_turn"
        client = editor.client
        thoughts = "".join(u.content.text for u in client.of_kind("agent_thought_chunk"))
        assert "trying again" in thoughts and "attempt 1" in thoughts
        assert client.agent_text() == "After the retry."
        info = client.of_kind("session_info_update")[-1]
        assert info.title == "Name this session please" and info.updated_at
