"""What an editor brings to `amplifier acp`: permission questions and their "always" answers, session modes, the
model as a config option, slash commands, its own files (fs/*), its own MCP servers, and trusting a project
without a terminal."""

from __future__ import annotations

import pytest
import yaml
from acpclient import EditorClient
from fakeapi import FakeAPIServer, ToolCall, Turn
from mcptestserver import stdio_command
from mcptestserver.fixtures import stdio_server_env

from .test_trust import MARKERS, _ran, build_hostile_repository


@pytest.fixture
def editor_project(e2e_api):
    e2e_api.profile("acp", tools=("tool-filesystem", "tool-bash", "tool-todo"),
                    hooks=("hooks-streaming-ui", "hooks-logging", "hooks-redaction", "hooks-approval"))
    return e2e_api


def _messages(server) -> list:
    return [request for request in server.requests if request.path.endswith("/messages")]


def _write(name: str, call_id: str, content: str = "new\n") -> Turn:
    return Turn(tool_calls=[ToolCall("write_file", {"file_path": name, "content": content}, id=call_id)])


async def test_a_question_names_the_call_and_offers_the_four_answers(editor_project) -> None:
    server = editor_project.server
    server.add(_write("a.txt", "call_a"), when_last_user_contains="write")
    server.add(Turn(text="Written."), when_last_tool_result_contains="a.txt")
    client = EditorClient(choices=["allow_once"])
    async with editor_project.acp("-P", "acp", client=client) as editor:
        session_id = await editor.start(editor_project.project)
        assert (await editor.say(session_id, "write a")).stop_reason == "end_turn"
        [(asked_session, call, options)] = client.permission_requests
        assert asked_session == session_id and call.tool_call_id == "call_a"
        assert sorted(option.kind for option in options) == ["allow_always", "allow_once", "reject_always",
                                                            "reject_once"]
        assert call.content[-1].type == "diff" and call.content[-1].new_text == "new\n"
        statuses = [u.status for u in client.of_kind("tool_call_update") if u.tool_call_id == "call_a"]
        assert statuses == ["in_progress", "completed"]
    assert (editor_project.project / "a.txt").read_text() == "new\n"


async def test_always_answers_are_saved_for_the_project_and_asked_no_more(editor_project) -> None:
    server = editor_project.server
    server.add(_write("kept.txt", "call_1"), when_last_user_contains="first")
    server.add(_write("kept.txt", "call_2"), when_last_user_contains="second")
    server.add(_write("never.txt", "call_3"), when_last_user_contains="third")
    server.add(_write("never.txt", "call_4"), when_last_user_contains="fourth")
    server.add(_write("kept.txt", "call_5", "again\n"), when_last_user_contains="fifth")
    server.add(Turn(text="ok"), repeat=True)
    client = EditorClient(choices=["allow_always", "reject_always"])
    async with editor_project.acp("-P", "acp", client=client) as editor:
        session_id = await editor.start(editor_project.project)
        for text in ("first", "second", "third", "fourth"):
            await editor.say(session_id, text)
    assert [call.tool_call_id for _, call, _ in client.permission_requests] == ["call_1", "call_3"]
    assert (editor_project.project / "kept.txt").exists() and not (editor_project.project / "never.txt").exists()
    saved = yaml.safe_load((editor_project.home / "config" / "project-approvals.yaml").read_text())
    [rules] = [entry["rules"] for entry in saved.values()]
    assert {"tool": "write_file", "args": {"file_path": "kept.txt"}, "action": "allow"} in rules
    assert {"tool": "write_file", "args": {"file_path": "never.txt"}, "action": "deny"} in rules
    # the chat and `run` read the same rules: a headless run now writes kept.txt without asking anyone
    result = editor_project.run("run", "-P", "acp", "fifth")
    assert result.returncode == 0 and (editor_project.project / "kept.txt").read_text() == "again\n"


async def test_approval_flag_decides_before_anyone_is_asked(editor_project) -> None:
    server = editor_project.server
    server.add(_write("denied.txt", "call_d"), when_last_user_contains="write")
    server.add(Turn(text="It was denied."), when_last_tool_result_contains="denied")
    async with editor_project.acp("-P", "acp", "--approval", "deny") as editor:
        session_id = await editor.start(editor_project.project)
        await editor.say(session_id, "write it")
        assert editor.client.permission_requests == []
        [failed] = [u for u in editor.client.of_kind("tool_call_update") if u.tool_call_id == "call_d"]
        assert failed.status == "failed"
    assert not (editor_project.project / "denied.txt").exists()


async def test_modes_plan_refuses_writes_and_accept_edits_asks_nothing(editor_project) -> None:
    server = editor_project.server
    server.add(_write("plan.txt", "call_p"), when_last_user_contains="planning")
    server.add(_write("edit.txt", "call_e"), when_last_user_contains="editing")
    server.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": ".amplifier/settings.yaml", "content": "x: 1\n"},
                                         id="call_protected")]), when_last_user_contains="protected")
    server.add(Turn(text="ok"), repeat=True)
    client = EditorClient(choices=["reject_once"])
    async with editor_project.acp("-P", "acp", client=client) as editor:
        session_id = await editor.start(editor_project.project)
        new = editor.client
        await editor.conn.set_session_mode(session_id=session_id, mode_id="plan")
        assert new.of_kind("current_mode_update")[-1].current_mode_id == "plan"
        await editor.say(session_id, "planning")
        await editor.conn.set_session_mode(session_id=session_id, mode_id="accept-edits")
        await editor.say(session_id, "editing")
        await editor.say(session_id, "protected place")
        with pytest.raises(Exception) as unknown:
            await editor.conn.set_session_mode(session_id=session_id, mode_id="yolo")
        assert unknown.value.code == -32602
    project = editor_project.project
    assert not (project / "plan.txt").exists() and (project / "edit.txt").exists()
    assert [call.tool_call_id for _, call, _ in client.permission_requests] == ["call_protected"]


async def test_the_model_is_a_config_option(editor_project) -> None:
    server = editor_project.server
    server.add(Turn(text="ok"), repeat=True)
    async with editor_project.acp("-P", "acp") as editor:
        await editor.conn.initialize(protocol_version=1)
        created = await editor.conn.new_session(cwd=str(editor_project.project), mcp_servers=[])
        [option] = created.config_options
        assert option.root.id == "model" if hasattr(option, "root") else option.id == "model"
        changed = await editor.conn.set_config_option(config_id="model", session_id=created.session_id,
                                                      value="claude-opus-4-1")
        assert changed.config_options[0].current_value == "claude-opus-4-1"
        await editor.say(created.session_id, "which model?")
        offered = await editor.client.wait_for("config_option_update", lambda update: "fake-model-small" in [
            option.value for option in update.config_options[0].options])
        assert offered.config_options[0].current_value == "claude-opus-4-1"
    assert _messages(server)[-1].model == "claude-opus-4-1"


async def test_commands_are_listed_and_run(editor_project) -> None:
    commands = editor_project.project / ".amplifier" / "commands"
    commands.mkdir()
    (commands / "review.md").write_text("---\ndescription: review a file\n---\nReview $ARGUMENTS carefully.\n")
    server = editor_project.server
    server.add(Turn(text="Reviewed."), when_last_user_contains="carefully")
    async with editor_project.acp("-P", "acp") as editor:
        session_id = await editor.start(editor_project.project)
        listed = await editor.client.wait_for("available_commands_update")
        names = [command.name for command in listed.available_commands]
        assert {"compact", "clear", "cost", "mode", "model", "review"} <= set(names)
        cost = await editor.say(session_id, "/cost")
        assert cost.stop_reason == "end_turn" and "tokens in" in editor.client.agent_text()
        assert _messages(server) == []  # answered without the model
        await editor.say(session_id, "/review app.py")
        await editor.say(session_id, "/mode plan")
        assert editor.client.of_kind("current_mode_update")[-1].current_mode_id == "plan"
    assert _messages(server)[0].last_user_text == "Review app.py carefully."


async def test_the_file_tools_read_and_write_through_the_editor_when_it_offers_them(editor_project) -> None:
    project = editor_project.project
    (project / "doc.txt").write_text("saved text\n")
    server = editor_project.server
    server.add(Turn(tool_calls=[ToolCall("read_file", {"file_path": "doc.txt"}, id="call_r")]),
               when_last_user_contains="read")
    server.add(Turn(tool_calls=[ToolCall("edit_file", {"file_path": "doc.txt", "old_string": "unsaved",
                                                       "new_string": "edited"}, id="call_w")]),
               when_last_tool_result_contains="unsaved")
    server.add(Turn(text="ok"), repeat=True)
    client = EditorClient(choices=["allow_once"], buffers={str(project / "doc.txt"): "unsaved text\n"})
    async with editor_project.acp("-P", "acp", client=client, fs=True) as editor:
        session_id = await editor.start(project, fs=True)
        await editor.say(session_id, "read the doc")
    assert "unsaved text" in _messages(server)[1].last_tool_result_text  # the model saw the editor's buffer
    assert client.writes == [(str(project / "doc.txt"), "edited text\n")]
    assert (project / "doc.txt").read_text() == "edited text\n"


async def test_no_fs_method_is_called_when_the_editor_does_not_offer_it(editor_project) -> None:
    project = editor_project.project
    (project / "doc.txt").write_text("on disk\n")
    server = editor_project.server
    server.add(Turn(tool_calls=[ToolCall("read_file", {"file_path": "doc.txt"})]), when_last_user_contains="read")
    server.add(Turn(text="ok"), repeat=True)
    async with editor_project.acp("-P", "acp") as editor:  # the schema check fails any fs/* call
        session_id = await editor.start(project)
        await editor.say(session_id, "read the doc")
        assert editor.client.reads == [] and editor.client.writes == []
    assert "on disk" in _messages(server)[1].last_tool_result_text


async def test_the_editors_mcp_servers_are_mounted_for_the_session(editor_project) -> None:
    from acp.schema import EnvVariable, McpServerStdio

    command = stdio_command()
    server = editor_project.server
    server.add(Turn(tool_calls=[ToolCall("mcp__editor-tools__echo", {"text": "via the editor"})]),
               when_last_user_contains="echo")
    server.add(Turn(text="ok"), repeat=True)
    async with editor_project.acp("-P", "acp", "--approval", "allow") as editor:
        await editor.conn.initialize(protocol_version=1)
        spec = McpServerStdio(name="editor tools", command=command[0], args=command[1:],
                              env=[EnvVariable(name=k, value=v) for k, v in stdio_server_env().items()])
        created = await editor.conn.new_session(cwd=str(editor_project.project), mcp_servers=[spec])
        await editor.say(created.session_id, "echo something")
    assert "mcp__editor-tools__echo" in _messages(server)[0].tool_names
    assert "via the editor" in _messages(server)[1].last_tool_result_text
    saved = next((editor_project.home / "data").rglob("mount_plan.json")).read_text()
    assert "editor-tools" not in saved and "PYTHONPATH" not in saved  # the editor's specs are not written down


@pytest.mark.untrusted
@pytest.mark.parametrize("answer", ["trust", "keep-off"])
async def test_an_untrusted_project_is_told_and_trusted_only_on_yes(e2e_api, answer) -> None:
    with FakeAPIServer() as evil:
        e2e_api.trust_project = False
        project = e2e_api.project
        build_hostile_repository(project, evil.base_url)
        e2e_api.profile("mine", user=True, tools=("tool-filesystem", "tool-bash", "tool-mcp", "tool-todo"),
                        hooks=("hooks-streaming-ui", "hook-shell", "hooks-approval"))
        e2e_api.server.add(Turn(text="From the user's provider."), repeat=True)
        evil.add(Turn(text="From the project's endpoint."), repeat=True)
        client = EditorClient(choices=["allow_once" if answer == "trust" else "reject_once"])
        async with e2e_api.acp("-P", "mine", client=client) as editor:
            session_id = await editor.start(project)
            assert _ran(project) == set()  # nothing ran at session/new
            await editor.say(session_id, "hello")
            [(_, question, _)] = client.permission_requests
            shown = question.content[0].content.text
            assert "ships things that run code" in shown and ".mcp.json" in shown
            assert "not trusted" in client.agent_text()
            if answer == "trust":
                assert set(MARKERS) - {"profile-module"} <= _ran(project) | {"workspace-module", "source-module"}
                assert "mcp-shared" in _ran(project) and "hook" in _ran(project)
                assert client.agent_text().endswith("From the project's endpoint.")
            else:
                assert _ran(project) == set()
                assert client.agent_text().endswith("From the user's provider.")
                await editor.say(session_id, "again")
                assert len(client.permission_requests) == 1  # asked once per session


async def test_skills_mcp_prompts_and_resources_work_as_in_the_chat(editor_project) -> None:
    from acp.schema import EnvVariable, McpServerStdio

    project = editor_project.project
    skill = project / ".amplifier" / "skills" / "tidy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: tidy\ndescription: Tidy the imports.\n---\nSort them.\n")
    editor_project.profile("skilled", tools=("tool-filesystem", "tool-skills", "tool-mcp"), hooks=())
    server = editor_project.server
    server.add(Turn(text="Tidied."), when_last_user_contains="tidy")
    server.add(Turn(text="Reviewed."), when_last_user_contains="carefully")
    server.add(Turn(text="Read it."), when_last_user_contains="resource")
    command = stdio_command()
    spec = McpServerStdio(name="tester", command=command[0], args=command[1:],
                          env=[EnvVariable(name=k, value=v) for k, v in stdio_server_env().items()])
    async with editor_project.acp("-P", "skilled") as editor:
        await editor.conn.initialize(protocol_version=1)
        session_id = (await editor.conn.new_session(cwd=str(project), mcp_servers=[spec])).session_id
        listed = await editor.client.wait_for("available_commands_update")
        names = {command.name: command for command in listed.available_commands}
        assert "tidy" in names and names["mcp__tester__review"].input.root.hint == "topic"
        await editor.say(session_id, "/tidy the imports")
        await editor.say(session_id, "/mcp__tester__review the parser")
        answer = await editor.say(session_id, "/mcp__tester__review")  # a required argument is missing
        assert answer.stop_reason == "end_turn" and "needs topic" in editor.client.agent_text()
        await editor.say(session_id, "summarise the resource @tester:test://readme")
    asked = [request.last_user_text for request in _messages(server)]
    assert asked[:2] == ["Load the skill 'tidy' with load_skill and follow it for: the imports.",
                         "Please review the parser carefully."]
    assert "hello from a resource" in asked[2]


@pytest.mark.untrusted
async def test_cancelling_while_the_trust_question_is_open_sends_nothing(e2e_api) -> None:
    import asyncio

    e2e_api.trust_project = False
    (e2e_api.project / ".mcp.json").write_text('{"mcpServers": {"theirs": {"command": "./bin/theirs.sh"}}}')
    e2e_api.profile("mine", user=True, tools=("tool-filesystem", "tool-mcp"), hooks=())
    e2e_api.server.add(Turn(text="never"), repeat=True)
    client = EditorClient(hold_permission=asyncio.Event(), choices=["cancelled"])
    async with e2e_api.acp("-P", "mine", client=client) as editor:
        session_id = await editor.start(e2e_api.project)
        prompt = asyncio.ensure_future(editor.say(session_id, "hello"))
        await asyncio.wait_for(client.permission_asked.wait(), 30)
        await editor.conn.cancel(session_id=session_id)
        client.hold_permission.set()  # the editor answers the open question "cancelled", as ACP says it must
        assert (await asyncio.wait_for(prompt, 30)).stop_reason == "cancelled"
    assert _messages(e2e_api.server) == []


async def test_a_sub_agents_question_shows_its_call_first_and_is_answered_in_the_editor(e2e_api) -> None:
    """The child's own updates reach the editor marked with its agent (_meta.amplifier), its tool call before the
    question about it; where they do not (an event the parent never forwards), the question shows the call first."""
    from testkit.agent_profiles import is_agent, is_parent, write_agent

    project = e2e_api.project
    write_agent(project, "writer", "WRITER-AGENT-MARK: write files when asked.")
    e2e_api.profile("delegating", tools=("tool-task", "tool-filesystem"), hooks=("hooks-approval",),
                    instruction="PARENT-SYSTEM-MARK")
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "writer", "instruction": "write out.txt"})]),
               when=lambda request: is_parent(request) and request.last_user_text == "delegate")
    server.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": "out.txt", "content": "from the child\n"},
                                         id="child_write")]),
               when=lambda request: is_agent("WRITER-AGENT-MARK")(request) and not request.last_tool_result_text)
    server.add(Turn(text="Child done."), when=is_agent("WRITER-AGENT-MARK"))
    server.add(Turn(text="Parent done."), when=is_parent)
    client = EditorClient(choices=["allow_once"])
    async with e2e_api.acp("-P", "delegating", client=client) as editor:
        session_id = await editor.start(project)
        assert (await editor.say(session_id, "delegate")).stop_reason == "end_turn"
        [(_, asked, _)] = client.permission_requests
        assert asked.tool_call_id == "child_write"
        shown = [update for update in client.of_kind("tool_call") if update.tool_call_id == "child_write"]
        assert shown and shown[0].title.startswith("Write out.txt")  # the editor saw the call before the question
        assert shown[0].field_meta["amplifier"]["agent"] == "writer"
        assert client.agent_text().endswith("Parent done.")
    assert (project / "out.txt").read_text() == "from the child\n"
