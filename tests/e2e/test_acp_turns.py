"""Turns in `amplifier acp`: what a prompt may carry (text, images, resource links, embedded resources), how tool
calls, the plan and usage reach the editor, the stop reasons, cancelling, and a provider failure."""

from __future__ import annotations

import asyncio
import base64
import threading

import acp
import pytest
from fakeapi import Fault, ToolCall, Turn

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(17)


@pytest.fixture
def editor_project(e2e_api):
    e2e_api.profile("acp", tools=("tool-filesystem", "tool-bash", "tool-todo"),
                    hooks=("hooks-streaming-ui", "hooks-logging", "hooks-redaction", "hooks-approval"),
                    provider_config={"max_retries": 0})
    return e2e_api


def _messages(server) -> list:
    return [request for request in server.requests if request.path.endswith("/messages")]


async def test_images_links_and_embedded_resources_reach_the_model(editor_project) -> None:
    project = editor_project.project
    (project / "linked.py").write_text("print('linked')\n")
    editor_project.server.add(Turn(text="Seen."))
    async with editor_project.acp("-P", "acp") as editor:
        session_id = await editor.start(project)
        response = await editor.say(
            session_id, "Look at these",
            acp.image_block(base64.b64encode(PNG).decode(), "image/png"),
            acp.resource_link_block("linked.py", (project / "linked.py").as_uri()),
            acp.resource_block(acp.embedded_text_resource((project / "draft.md").as_uri(), "unsaved draft text")),
            acp.resource_link_block("docs", "https://example.com/docs"))
        assert response.stop_reason == "end_turn"
    body = _messages(editor_project.server)[0].json
    content = body["messages"][-1]["content"]
    images = [block for block in content if block["type"] == "image"]
    assert images and images[0]["source"]["data"] == base64.b64encode(PNG).decode()
    text = "\n".join(block["text"] for block in content if block["type"] == "text")
    assert '<file path="linked.py">\nprint(\'linked\')\n</file>' in text
    assert '<file path="draft.md">\nunsaved draft text\n</file>' in text
    assert "[linked: docs <https://example.com/docs>]" in text


async def test_audio_is_refused_as_bad_params_and_the_session_goes_on(editor_project) -> None:
    editor_project.server.add(Turn(text="Fine."))
    async with editor_project.acp("-P", "acp") as editor:
        session_id = await editor.start(editor_project.project)
        with pytest.raises(acp.RequestError) as refused:
            await editor.say(session_id, "listen", acp.audio_block("AAAA", "audio/wav"))
        assert refused.value.code == -32602
        assert (await editor.say(session_id, "hello")).stop_reason == "end_turn"


async def test_tool_calls_show_kind_title_locations_diff_and_output(editor_project) -> None:
    project = editor_project.project
    (project / "app.py").write_text("x = 1\n")
    server = editor_project.server
    server.add(Turn(tool_calls=[ToolCall("edit_file", {"file_path": "app.py", "old_string": "x = 1",
                                                       "new_string": "x = 2"}, id="call_edit")]),
               when_last_user_contains="change")
    server.add(Turn(tool_calls=[ToolCall("bash", {"command": "echo from-the-shell"}, id="call_bash")]),
               when_last_tool_result_contains="Edited")
    server.add(Turn(tool_calls=[ToolCall("todo", {"action": "write", "todos": [
        {"content": "Change x", "status": "completed"}, {"content": "Run tests", "status": "in_progress"}]},
        id="call_todo")]), when_last_tool_result_contains="from-the-shell")
    server.add(Turn(text="Done."), when_last_tool_result_contains="Run tests")
    async with editor_project.acp("-P", "acp", "--approval", "allow") as editor:
        session_id = await editor.start(project)
        assert (await editor.say(session_id, "change x")).stop_reason == "end_turn"
        client = editor.client
        calls = {call.tool_call_id: call for call in client.of_kind("tool_call")}
        edit, shell = calls["call_edit"], calls["call_bash"]
        assert (edit.kind, edit.title, edit.status) == ("edit", "Edit app.py", "pending")
        assert edit.locations[0].path == str(project / "app.py")
        assert edit.raw_input["new_string"] == "x = 2"
        assert (shell.kind, shell.title) == ("execute", "`echo from-the-shell`")
        assert calls["call_todo"].kind == "think"
        done = {update.tool_call_id: update for update in client.of_kind("tool_call_update")}
        diff = done["call_edit"].content[0]
        assert (diff.type, diff.path, diff.old_text, diff.new_text) == ("diff", str(project / "app.py"), "x = 1\n",
                                                                        "x = 2\n")
        assert done["call_edit"].status == "completed"
        assert "from-the-shell" in done["call_bash"].content[0].content.text
        plan = client.of_kind("plan")[-1]
        assert [(entry.content, entry.status) for entry in plan.entries] == [
            ("Change x", "completed"), ("Run tests", "in_progress")]
    assert (project / "app.py").read_text() == "x = 2\n"


@pytest.mark.parametrize(("turn", "reason"), [
    (Turn(text="cut", stop_reason="max_tokens"), "max_tokens"),
    (Turn(text="I can't help with that.", stop_reason="refusal"), "refusal"),
], ids=["max_tokens", "refusal"])
async def test_the_models_own_stop_is_the_stop_reason(editor_project, turn, reason) -> None:
    editor_project.server.add(turn)
    async with editor_project.acp("-P", "acp") as editor:
        session_id = await editor.start(editor_project.project)
        assert (await editor.say(session_id, "go")).stop_reason == reason


async def test_a_turn_budget_ends_the_turn_with_max_turn_requests(editor_project) -> None:
    (editor_project.project / ".amplifier" / "settings.yaml").write_text("budget: {max_turns: 1}\n")
    server = editor_project.server
    server.add(Turn(tool_calls=[ToolCall("read_file", {"file_path": "."})]), repeat=True)
    async with editor_project.acp("-P", "acp", "--approval", "allow") as editor:
        session_id = await editor.start(editor_project.project)
        assert (await editor.say(session_id, "loop forever")).stop_reason == "max_turn_requests"
        assert "budget" in editor.client.agent_text() or "turn" in editor.client.agent_text()


async def test_a_provider_failure_is_an_error_the_editor_shows_and_the_next_prompt_works(editor_project) -> None:
    server = editor_project.server
    server.add(Fault.status(400, message="prompt is too long"))
    server.add(Turn(text="Recovered."))
    async with editor_project.acp("-P", "acp") as editor:
        session_id = await editor.start(editor_project.project)
        with pytest.raises(acp.RequestError) as failed:
            await editor.say(session_id, "first")
        assert "prompt is too long" in str(failed.value)
        assert "sk-ant" not in str(failed.value) and "sk-ant" not in str(failed.value.data)
        assert (await editor.say(session_id, "second")).stop_reason == "end_turn"
        assert editor.client.agent_text() == "Recovered."


async def test_cancel_abandons_the_model_request_and_the_next_prompt_is_answered(editor_project) -> None:
    server = editor_project.server
    gate = threading.Event()
    held = server.add(Turn(text="never shown"), when_last_user_contains="slow", gate=gate)
    server.add(Turn(text="Back again."), when_last_user_contains="next")
    try:
        async with editor_project.acp("-P", "acp") as editor:
            session_id = await editor.start(editor_project.project)
            prompt = asyncio.ensure_future(editor.say(session_id, "a slow question"))
            assert await asyncio.to_thread(held.matched.wait, 30)
            await editor.conn.cancel(session_id=session_id)
            assert (await asyncio.wait_for(prompt, 15)).stop_reason == "cancelled"
            assert (await editor.say(session_id, "next one")).stop_reason == "end_turn"
            assert editor.client.agent_text().endswith("Back again.")
    finally:
        gate.set()
    conversation = _messages(server)[-1].json["messages"]
    assert [m["role"] for m in conversation][:2] == ["user", "assistant"]  # the cancelled turn stayed whole


async def test_cancel_stops_a_running_command_and_a_pending_question(editor_project) -> None:
    server = editor_project.server
    server.add(Turn(tool_calls=[ToolCall("bash", {"command": "sleep 60; touch first.txt"}, id="call_sleep")]),
               when_last_user_contains="please sleep")
    server.add(Turn(tool_calls=[ToolCall("bash", {"command": "sleep 60; touch second.txt"}, id="call_sleep2")]),
               when_last_user_contains="sleep again")
    server.add(Turn(text="ok"), repeat=True)
    from acpclient import EditorClient

    client = EditorClient(hold_permission=asyncio.Event(), choices=["reject_once", "allow_once"])
    async with editor_project.acp("-P", "acp", client=client) as editor:
        session_id = await editor.start(editor_project.project)
        prompt = asyncio.ensure_future(editor.say(session_id, "please sleep"))
        await asyncio.wait_for(client.permission_asked.wait(), 30)
        await editor.conn.cancel(session_id=session_id)  # the question is still open
        assert (await asyncio.wait_for(prompt, 15)).stop_reason == "cancelled"
        client.hold_permission.set()  # the late answer to the cancelled question changes nothing
        prompt = asyncio.ensure_future(editor.say(session_id, "sleep again"))
        await client.wait_for("tool_call_update",
                              lambda update: update.tool_call_id == "call_sleep2" and update.status == "in_progress")
        await editor.conn.cancel(session_id=session_id)  # the command is running
        assert (await asyncio.wait_for(prompt, 15)).stop_reason == "cancelled"
        assert [call.tool_call_id for _, call, _ in client.permission_requests] == ["call_sleep", "call_sleep2"]
    assert not (editor_project.project / "first.txt").exists() and not (editor_project.project / "second.txt").exists()

