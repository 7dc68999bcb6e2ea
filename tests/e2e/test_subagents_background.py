"""Background sub-agents (`task` with `run_in_background`) in `amplifier acp`: the parent answers while its child is
still held at the fake API, a later turn reads the child's result with `task_output` (waiting for it), and the
child's updates reach the editor marked with `_meta.amplifier` naming the agent. Synchronisation is by the
server's journal and the editor's updates, never by sleeping."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from fakeapi import ToolCall, Turn

CHILD_MARK = "CHILD-MARK"


def _is_child(request: Any) -> bool:
    return CHILD_MARK in request.system_text



async def test_a_background_child_is_held_when_the_parent_answers_and_a_later_turn_reads_its_result(e2e_api) -> None:
    agents = e2e_api.home / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(f"---\ndescription: helps\n---\n{CHILD_MARK}: do the job.\n")
    e2e_api.profile("bg", tools=("tool-task",))
    server = e2e_api.server
    gate = threading.Event()
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "helper", "instruction": "count the files",
                                                  "run_in_background": True}, id="call_bg")]),
               when=lambda request: not _is_child(request) and request.last_user_text == "start it")
    held = server.add(Turn(text="there are 42 files"), when=_is_child, gate=gate)
    server.add(Turn(text="Started it in the background."),
               when=lambda request: not _is_child(request) and "running" in request.last_tool_result_text)
    try:
        async with e2e_api.acp("-P", "bg") as editor:
            session_id = await editor.start(e2e_api.project)
            first = await editor.say(session_id, "start it")
            assert first.stop_reason == "end_turn"
            assert "Started it in the background." in editor.client.agent_text()
            assert await asyncio.to_thread(held.matched.wait, 30)  # the child reached the model ...
            assert not gate.is_set()  # ... and is held there: the parent answered without it
            assert "is still running" in editor.client.agent_text()  # reported at the end of the turn

            status = await editor.client.wait_for("agent_thought_chunk", lambda update: (update.field_meta or {})
                                                  .get("amplifier", {}).get("agent") == "helper")
            child_id = status.field_meta["amplifier"]["session_id"]
            assert status.field_meta["amplifier"]["parent_session_id"] == session_id
            server.add(Turn(tool_calls=[ToolCall("task_output", {"session_id": child_id, "wait": True},
                                                 id="call_output")]),
                       when=lambda request: not _is_child(request) and request.last_user_text == "what did it find?")
            server.add(Turn(text="It found 42 files."),
                       when=lambda request: not _is_child(request) and "42 files" in request.last_tool_result_text)
            second = asyncio.ensure_future(editor.say(session_id, "what did it find?"))
            await editor.client.wait_for("tool_call", lambda update: update.tool_call_id == "call_output")
            gate.set()  # task_output is waiting for the child: now the child gets its answer
            assert (await asyncio.wait_for(second, 30)).stop_reason == "end_turn"
            assert "It found 42 files." in editor.client.agent_text()
            child_thoughts = [update for update in editor.client.of_kind("agent_thought_chunk")
                              if (update.field_meta or {}).get("amplifier", {}).get("session_id") == child_id]
            assert "there are 42 files" in "".join(update.content.text for update in child_thoughts)
            assert "there are 42 files" not in editor.client.agent_text()  # a child's text is not the answer
            editor.assert_clean()
    finally:
        gate.set()
    answered = [request for request in server.requests if "42 files" in request.last_tool_result_text]
    assert len(answered) == 1


def test_a_background_child_still_running_when_a_run_ends_is_reported_and_stops_with_it(e2e_api) -> None:
    from testkit.event_schemas import assert_stream_lines_valid

    agents = e2e_api.home / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(f"---\ndescription: helps\n---\n{CHILD_MARK}: do the job.\n")
    e2e_api.profile("bg", tools=("tool-task",))
    server = e2e_api.server
    gate = threading.Event()
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "helper", "instruction": "a long job",
                                                  "run_in_background": True}, id="call_bg")]),
               when=lambda request: not _is_child(request) and request.last_user_text == "go")
    held = server.add(Turn(text="too late"), when=_is_child, gate=gate)

    def once_the_child_is_held(request: Any) -> Turn:
        assert held.matched.wait(30)  # the parent answers only once its child waits at the model
        return Turn(text="Started.")

    server.add(once_the_child_is_held, when=lambda request: not _is_child(request))
    try:
        result = e2e_api.run("run", "-P", "bg", "-o", "stream-json", "go")
    finally:
        gate.set()
    assert result.returncode == 0, result.stderr
    assert "background sub-agent 'helper'" in result.stderr and "it stops now" in result.stderr
    lines = assert_stream_lines_valid(result.stdout)
    assert lines[-1]["type"] == "result" and lines[-1]["response"] == "Started."
    statuses = [line["status"] for line in lines if line["type"] == "agent_status"]
    assert statuses == ["running", "cancelled"]
    [child] = [session for session in e2e_api.session_dirs() if e2e_api.metadata(session).get("parent_id")]
    assert e2e_api.metadata(child)["status"] == "cancelled"
    transcript = e2e_api.transcript(child)
    e2e_api.assert_tool_pairs_complete(transcript)
    assert [message["role"] for message in transcript] == ["system", "user", "assistant"]


def test_a_background_childs_spending_counts_and_a_reached_budget_stops_it(e2e_api) -> None:
    import json

    from fakeapi import Usage

    agents = e2e_api.home / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(f"---\ndescription: helps\n---\n{CHILD_MARK}: do the job.\n")
    e2e_api.profile("bg", tools=("tool-task", "tool-filesystem"))
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "helper", "instruction": "write files",
                                                  "run_in_background": True}, id="call_bg")]),
               when=lambda request: not _is_child(request) and request.last_user_text == "go")

    def wait_for_the_child(request: Any) -> Turn:
        child_id = request.last_tool_result_text.split('"session_id": "')[1].split('"')[0]
        return Turn(tool_calls=[ToolCall("task_output", {"session_id": child_id, "wait": True}, id="call_wait")])

    server.add(wait_for_the_child, when=lambda request: not _is_child(request) and "call_bg" in
               json.dumps(request.json["messages"][-1]))
    server.add(Turn(tool_calls=[ToolCall("write_file", {"file_path": "b.txt", "content": "x"})],
                    usage=Usage(input_tokens=5000, output_tokens=100)), when=_is_child, repeat=True)
    server.add(Turn(text="parent done"), when=lambda request: not _is_child(request), repeat=True)
    result = e2e_api.run("run", "-P", "bg", "--approval", "allow", "-o", "json", "--max-total-tokens", "2000", "go")
    assert result.returncode == 3, result.stderr
    record = json.loads(result.stdout)
    assert record["budget"]["budget"] == "max_total_tokens" and int(record["budget"]["used"]) >= 5100
    assert len([request for request in server.requests if _is_child(request)]) == 1  # stopped after its tool


async def test_acp_cancel_stops_children_waiting_on_the_model_and_their_updates_name_the_agent(e2e_api) -> None:
    agents = e2e_api.home / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(f"---\ndescription: helps\n---\n{CHILD_MARK}: do the job.\n")
    e2e_api.profile("bg", tools=("tool-task",))
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "helper", "instruction": f"job {index}"},
                                         id=f"call_{index}") for index in range(2)]),
               when=lambda request: not _is_child(request) and request.last_user_text == "two jobs")
    gate = threading.Event()
    server.add(Turn(text="never shown"), when=_is_child, gate=gate, times=2)
    server.add(Turn(text="Back again."), when=lambda request: not _is_child(request) and
               request.last_user_text == "next")
    try:
        async with e2e_api.acp("-P", "bg") as editor:
            session_id = await editor.start(e2e_api.project)
            prompt = asyncio.ensure_future(editor.say(session_id, "two jobs"))
            await asyncio.to_thread(server.wait_for_requests, 3, 30)  # both children wait on the model
            await editor.conn.cancel(session_id=session_id)
            assert (await asyncio.wait_for(prompt, 15)).stop_reason == "cancelled"
            assert (await editor.say(session_id, "next")).stop_reason == "end_turn"
            started = [update for update in editor.client.of_kind("agent_thought_chunk")
                       if (update.field_meta or {}).get("amplifier", {}).get("agent") == "helper"]
            assert len({update.field_meta["amplifier"]["session_id"] for update in started}) == 2
            editor.assert_clean()
    finally:
        gate.set()
    children = [session for session in e2e_api.session_dirs() if e2e_api.metadata(session).get("parent_id")]
    assert len(children) == 2
    for session in e2e_api.session_dirs():
        e2e_api.assert_tool_pairs_complete(e2e_api.transcript(session))
    assert all(e2e_api.metadata(child)["status"] == "cancelled" for child in children)


async def test_approvals_of_two_children_reach_the_editor_one_at_a_time_each_naming_its_agent(e2e_api) -> None:
    from acpclient import EditorClient

    agents = e2e_api.home / "config" / "agents"
    agents.mkdir(parents=True)
    for name in ("builder", "tester"):
        (agents / f"{name}.md").write_text(f"---\ndescription: {name}\n---\n{CHILD_MARK} {name}: run commands.\n")
    e2e_api.profile("asks", tools=("tool-task", "tool-bash"),
                    hooks=("hooks-streaming-ui", "hooks-logging", "hooks-redaction", "hooks-approval"))
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": name, "instruction": f"{name} job"}, id=f"call_{name}")
                                for name in ("builder", "tester")]),
               when=lambda request: not _is_child(request) and request.last_user_text == "both")
    for name in ("builder", "tester"):
        server.add(Turn(tool_calls=[ToolCall("bash", {"command": f"touch {name}.txt"}, id=f"bash_{name}")]),
                   when=lambda request, name=name: f"{CHILD_MARK} {name}" in request.system_text
                   and request.last_user_text == f"{name} job")
    server.add(Turn(text="child done"), when=_is_child, times=2)
    server.add(Turn(text="Both done."), when=lambda request: not _is_child(request))
    client = EditorClient(hold_permission=asyncio.Event(), choices=["allow_once", "allow_once"])
    async with e2e_api.acp("-P", "asks", client=client) as editor:
        session_id = await editor.start(e2e_api.project)
        prompt = asyncio.ensure_future(editor.say(session_id, "both"))
        await asyncio.wait_for(client.permission_asked.wait(), 30)
        await asyncio.to_thread(server.wait_for_requests, 3, 30)  # both children asked the model for their bash
        assert len(client.permission_requests) == 1  # the other child's question waits its turn
        client.hold_permission.set()
        assert (await asyncio.wait_for(prompt, 30)).stop_reason == "end_turn"
        questions = [" ".join(block.content.text for block in call.content or [] if hasattr(block, "content"))
                     for _, call, _ in client.permission_requests]
        assert len(questions) == 2
        assert sorted("[agent builder]" in text for text in questions) == [False, True]
        assert sorted("[agent tester]" in text for text in questions) == [False, True]
        editor.assert_clean()


def test_a_background_child_prints_nothing_and_its_answer_reaches_the_model_through_task_output(e2e_api) -> None:
    import json

    agents = e2e_api.home / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "helper.md").write_text(f"---\ndescription: helps\n---\n{CHILD_MARK}: do the job.\n")
    e2e_api.profile("bg", tools=("tool-task",))
    server = e2e_api.server
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "helper", "instruction": "quietly",
                                                  "run_in_background": True}, id="call_bg")]),
               when=lambda request: not _is_child(request) and request.last_user_text == "go")

    def wait_for_the_child(request: Any) -> Turn:
        child_id = request.last_tool_result_text.split('"session_id": "')[1].split('"')[0]
        return Turn(tool_calls=[ToolCall("task_output", {"session_id": child_id, "wait": True}, id="call_wait")])

    server.add(wait_for_the_child, when=lambda request: not _is_child(request) and "call_bg" in
               json.dumps(request.json["messages"][-1]))
    server.add(Turn(text="QUIET-CHILD-TEXT"), when=_is_child)
    server.add(Turn(text="The helper answered."), when=lambda request: not _is_child(request) and
               "QUIET-CHILD-TEXT" in request.last_tool_result_text)
    result = e2e_api.run("run", "-P", "bg", "go")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The helper answered.\n"
    # the child's answer shows once, in the parent's task_output result line; the child itself printed nothing
    assert result.stderr.count("QUIET-CHILD-TEXT") == 1
    assert "task_output" in result.stderr
