"""Whole sessions through open_session against the fake API server (provider-anthropic, dummy key): the
parent delegates with `task`, the child runs a tool and answers, the parent continues with that answer;
the child is resumed by id; the depth limit refuses; cancelling the parent cancels the child and leaves both
transcripts with every tool call paired; AGENTS.md reaches the first request."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from fakeapi import ToolCall, Turn
from testkit.agent_profiles import (
    PARENT_MARK,
    READER_MARK,
    is_agent,
    is_parent,
    script_delegation,
    write_agent,
    write_profile,
)

from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.sessions.factory import LiveSession, SessionRequest, open_session, session_store_for
from amplifier_cli.sessions.spawner import SubAgentError

WAIT = 30.0


def tool_pairs_complete(messages: list[dict[str, Any]]) -> bool:
    for index, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        calls = {call["id"] for call in message.get("tool_calls") or []}
        answered = set()
        for later in messages[index + 1:]:
            if later.get("role") != "tool":
                break
            answered.add(later.get("tool_call_id"))
        if not calls <= answered:
            return False
    return True


def transcript(session_dir: Path) -> list[dict[str, Any]]:
    lines = (session_dir / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def children_of(live: LiveSession) -> list[Any]:
    return session_store_for(live.paths).children_of(live.session_id)


@pytest.fixture
async def opened():
    sessions: list[LiveSession] = []

    async def open_(profile: str = "agents-test") -> LiveSession:
        live = await open_session(SessionRequest(profile=profile), paths=AmplifierPaths.discover())
        sessions.append(live)
        return live

    yield open_
    for live in sessions:
        await live.close()


@pytest.fixture
def project(project_dir, anthropic_env):
    write_profile(project_dir, hooks=[{"module": "hooks-logging"}])
    write_agent(project_dir, "reader", f"{READER_MARK}: you read files and report.")
    (project_dir / "data.txt").write_text("the launch code is 4711\n")
    return project_dir


async def test_parent_delegates_child_runs_a_tool_and_the_parent_continues_with_its_answer(project, opened,
                                                                                         fake_api):
    script_delegation(fake_api)
    live = await opened()
    seen: list[tuple[str, dict[str, Any]]] = []

    async def record(event: str, data: dict[str, Any]) -> None:
        seen.append((event, data))

    for name in ("task:agent_spawned", "task:agent_completed"):
        live.coordinator.hooks.register(name, record)

    answer = await live.execute("what is the code?")

    assert answer == "Your code: 4711."
    assert fake_api.unmatched == []
    result = json.loads(fake_api.requests[-1].last_tool_result_text)
    [child_meta] = children_of(live)
    assert result == {"response": "The code is 4711.", "session_id": child_meta.session_id, "agent": "reader"}
    assert child_meta.agent == "reader" and child_meta.status == "completed"
    child_dir = live.record.directory.parent / child_meta.session_id
    saved = transcript(child_dir)
    assert [m["role"] for m in saved] == ["system", "user", "assistant", "tool", "assistant"]
    assert READER_MARK in saved[0]["content"] and PARENT_MARK not in saved[0]["content"]
    assert tool_pairs_complete(saved) and tool_pairs_complete(transcript(live.record.directory))
    assert [event for event, _ in seen] == ["task:agent_spawned", "task:agent_completed"]
    assert seen[1][1]["success"] is True and seen[1][1]["sub_session_id"] == child_meta.session_id
    # the child's own events (hooks-logging in the child) carry the parent's id
    child_events = [json.loads(line) for line in (child_dir / "events.jsonl").read_text().splitlines()]
    assert child_events and {record["parent_id"] for record in child_events} == {live.session_id}
    assert any(record["event"] == "session:fork" for record in child_events)
    # the parent's usage includes the child's two requests
    assert live.usage.session.requests == 4


async def test_the_model_continues_the_same_child_by_session_id(project, opened, fake_api):
    script_delegation(fake_api)
    child = is_agent(READER_MARK)

    def resume_call(request: Any) -> Turn:
        child_id = re.search(r'"session_id": "([0-9a-f-]+)"', json.dumps(request.json["messages"])
                             .replace('\\"', '"')).group(1)
        return Turn(tool_calls=[ToolCall("task", {"session_id": child_id, "instruction": "and the first word?"})])

    fake_api.add(resume_call, when=lambda r: is_parent(r) and r.last_user_text == "ask it again")
    fake_api.add(Turn(text="The first word is 'the'."),
                 when=lambda r: child(r) and r.last_user_text == "and the first word?")
    fake_api.add(Turn(text="It says 'the'."),
                 when=lambda r: is_parent(r) and "first word is" in r.last_tool_result_text)
    live = await opened()

    await live.execute("what is the code?")
    answer = await live.execute("ask it again")

    assert answer == "It says 'the'."
    [child_meta] = children_of(live)  # resumed, not a second child
    resumed_request = next(r for r in fake_api.requests if r.last_user_text == "and the first word?")
    assert resumed_request.user_texts[0] == "read data.txt"  # the child remembers its first task
    assert "4711" in json.dumps(resumed_request.json["messages"])
    saved = transcript(live.record.directory.parent / child_meta.session_id)
    assert [m["role"] for m in saved][-2:] == ["user", "assistant"] and tool_pairs_complete(saved)


def script_grandchild_attempt(server: Any) -> Any:
    """Parent "start" -> task(reader, "go deeper") -> the reader tries task(reader, "grandchild"); once refused, it
    says "I could not delegate.". Returns the reader's request predicate, for the rest of the script."""
    child = is_agent(READER_MARK)
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "reader", "instruction": "go deeper"})]),
               when=lambda r: is_parent(r) and r.last_user_text == "start")
    server.add(Turn(tool_calls=[ToolCall("task", {"agent": "reader", "instruction": "grandchild"})]),
               when=lambda r: child(r) and r.last_user_text == "go deeper")
    server.add(Turn(text="I could not delegate."), when=lambda r: child(r) and "refused" in r.last_tool_result_text)
    return child


async def test_depth_limit_refuses_a_sub_agent_that_tries_to_delegate(project_dir, anthropic_env, opened, fake_api):
    write_profile(project_dir, tools=[{"module": "tool-task", "config": {"max_depth": 1}}])
    write_agent(project_dir, "reader", f"{READER_MARK}: you read files.")
    script_grandchild_attempt(fake_api)
    fake_api.add(Turn(text="done"), when=lambda r: is_parent(r) and "could not delegate" in r.last_tool_result_text)
    live = await opened()

    assert await live.execute("start") == "done"

    refusal = next(r for r in fake_api.requests if "refused" in r.last_tool_result_text).last_tool_result_text
    assert "depth 1" in refusal and "max_depth=1" in refusal
    assert len(session_store_for(live.paths).all_metadata()) == 2  # no grandchild session was created


async def test_the_app_enforces_the_depth_limit_and_unknown_agents_whoever_calls_spawn(project, opened):
    live = await opened()
    spawn = live.coordinator.get_capability("session.spawn")
    assert live.coordinator.get_capability("session.depth") == 0
    with pytest.raises(SubAgentError, match="max_depth=0") as refused:
        await spawn("reader", "x", live.session, max_depth=0)
    assert refused.value.refused
    with pytest.raises(SubAgentError, match=r"unknown agent 'ghost'.*reader"):
        await spawn("ghost", "x")
    with pytest.raises(SubAgentError, match="not a sub-agent of this session"):
        await live.coordinator.get_capability("session.resume")(live.session_id, "x")
    assert children_of(live) == []


async def test_immediate_cancel_during_the_child_cancels_it_and_both_transcripts_stay_paired(project, opened,
                                                                                           fake_api):
    child = is_agent(READER_MARK)
    gate = threading.Event()
    fake_api.add(Turn(tool_calls=[ToolCall("task", {"agent": "reader", "instruction": "read data.txt"})]),
                 when=lambda r: is_parent(r) and r.last_user_text == "what is the code?")
    fake_api.add(Turn(tool_calls=[ToolCall("read_file", {"file_path": "data.txt"})]),
                 when=lambda r: child(r) and r.last_user_text == "read data.txt")
    held = fake_api.add(Turn(text="never seen"), when=lambda r: child(r) and "4711" in r.last_tool_result_text,
                        gate=gate)
    live = await opened()
    turn = asyncio.ensure_future(live.execute("what is the code?"))
    try:
        assert await asyncio.to_thread(held.matched.wait, WAIT), "the child's second request never arrived"
        await live.coordinator.request_cancel(immediate=True)
        answer = await asyncio.wait_for(turn, WAIT)
    finally:
        gate.set()

    assert answer == ""
    [child_meta] = children_of(live)
    assert child_meta.status == "cancelled"
    child_saved = transcript(live.record.directory.parent / child_meta.session_id)
    parent_saved = transcript(live.record.directory)
    assert tool_pairs_complete(child_saved) and tool_pairs_complete(parent_saved)
    assert [m["role"] for m in child_saved][:4] == ["system", "user", "assistant", "tool"]
    task_result = next(m for m in parent_saved if m["role"] == "tool")
    assert "Cancel" in task_result["content"]
    assert live.coordinator.cancellation._children == []  # the child's token was unlinked


async def test_agents_md_is_system_content_of_the_first_request_of_parent_and_child(project, opened, fake_api):
    (project / "AGENTS.md").write_text("HOUSE-RULE: answer in haiku. @docs/style.md @../outside.md\n")
    (project / "docs").mkdir()
    (project / "docs" / "style.md").write_text("STYLE-RULE: no emoji.")
    (project.parent / "outside.md").write_text("OUTSIDE-SECRET")
    script_delegation(fake_api)
    live = await opened()

    await live.execute("what is the code?")

    first, child_first = fake_api.requests[0], fake_api.requests[1]
    for request in (first, child_first):
        assert "HOUSE-RULE: answer in haiku." in request.system_text
        assert "STYLE-RULE: no emoji." in request.system_text
        assert "OUTSIDE-SECRET" not in json.dumps(request.json)
    assert first.system_text.index(PARENT_MARK) < first.system_text.index("HOUSE-RULE")
    assert live.instruction_files == [project / "AGENTS.md", project / "docs" / "style.md"]
    assert any("@../outside.md" in warning and "refused" in warning for warning in live.warnings)


async def test_a_profile_can_turn_project_instructions_off(project_dir, anthropic_env, opened, fake_api):
    write_profile(project_dir, tools=[], project_instructions=False)
    (project_dir / "AGENTS.md").write_text("HOUSE-RULE")
    fake_api.add(Turn(text="ok"))
    live = await opened()
    await live.execute("hi")
    assert "HOUSE-RULE" not in fake_api.requests[0].system_text
    assert live.instruction_files == []


async def test_a_resumed_session_reports_its_instruction_files_without_adding_them_again(project, opened,
                                                                                          fake_api):
    (project / "AGENTS.md").write_text("HOUSE-RULE")
    fake_api.add(Turn(text="one"))
    fake_api.add(Turn(text="two"))
    first = await opened()
    await first.execute("hi")
    await first.close()
    resumed = await open_session(SessionRequest(resume_id=first.session_id), paths=AmplifierPaths.discover())
    try:
        await resumed.execute("again")
    finally:
        await resumed.close()
    assert resumed.instruction_files == [project / "AGENTS.md"]
    assert fake_api.requests[1].system_text.count("HOUSE-RULE") == 1


async def test_a_profile_agent_runs_with_its_partial_plan_merged_over_the_parents(project_dir, anthropic_env,
                                                                                 opened, fake_api):
    write_profile(project_dir, agents={"talker": {"description": "Only talks.", "instruction": "TALKER-MARK",
                                                  "exclude": {"tools": ["tool-filesystem"]}}})
    fake_api.add(Turn(tool_calls=[ToolCall("task", {"agent": "talker", "instruction": "say hi"})]),
                 when=lambda r: is_parent(r) and r.last_user_text == "delegate")
    fake_api.add(Turn(text="hi"), when=is_agent("TALKER-MARK"))
    fake_api.add(Turn(text="it said hi"), when=lambda r: is_parent(r) and '"hi"' in r.last_tool_result_text)
    live = await opened()

    assert await live.execute("delegate") == "it said hi"

    parent_request, child_request = fake_api.requests[0], fake_api.requests[1]
    assert "read_file" in parent_request.tool_names and "talker: Only talks." in json.dumps(parent_request.json)
    assert "read_file" not in child_request.tool_names and "task" in child_request.tool_names


async def test_an_agent_plan_raising_max_depth_cannot_lift_the_parents_limit(project_dir, anthropic_env, opened,
                                                                               fake_api):
    write_profile(project_dir, tools=[{"module": "tool-task", "config": {"max_depth": 1}}])
    write_agent(project_dir, "reader", f"{READER_MARK}: you read files.",
                frontmatter={"tools": [{"module": "tool-task", "config": {"max_depth": 50}}]})
    child = script_grandchild_attempt(fake_api)
    fake_api.add(Turn(text="stop"), when=lambda r: child(r) and r.last_user_text == "grandchild")
    fake_api.add(Turn(text="done"), when=lambda r: is_parent(r) and r.last_tool_result_text != "")
    live = await opened()

    assert await live.execute("start") == "done"

    assert any("max_depth=1" in r.last_tool_result_text for r in fake_api.requests)
    assert len(session_store_for(live.paths).all_metadata()) == 2  # no grandchild session was created


async def test_a_subagent_stop_hook_sends_the_real_child_back_to_work_once(project_dir, anthropic_env, opened,
                                                                            fake_api):
    """hook-shell + tool-task + the app's spawner: a Claude Code-format SubagentStop hook that blocks while
    stop_hook_active is false makes the same child session go on with the hook's reason."""
    import sys

    write_profile(project_dir, hooks=[{"module": "hook-shell"}])
    write_agent(project_dir, "reader", f"{READER_MARK}: you read files and report.")
    (project_dir / "data.txt").write_text("the launch code is 4711\n")
    check = project_dir / ".amplifier" / "hooks" / "check.py"
    check.parent.mkdir(parents=True, exist_ok=True)
    check.write_text("import json, sys\nevent = json.load(sys.stdin)\n"
                     "if not event['stop_hook_active']:\n"
                     "    print('also give the first word', file=sys.stderr)\n    sys.exit(2)\n")
    (project_dir / ".amplifier" / "hooks" / "hooks.json").write_text(json.dumps({"hooks": {"SubagentStop": [
        {"matcher": "reader", "hooks": [{"type": "command", "command": f"{sys.executable} {check}"}]}]}}))
    script_delegation(fake_api)
    child = is_agent(READER_MARK)
    fake_api.add(Turn(text="The first word is 'the'."),
                 when=lambda r: child(r) and r.last_user_text == "also give the first word")
    fake_api.add(Turn(text="Code 4711, first word 'the'."),
                 when=lambda r: is_parent(r) and "first word is" in r.last_tool_result_text)
    live = await opened()

    answer = await live.execute("what is the code?")

    assert answer == "Code 4711, first word 'the'."
    [child_meta] = children_of(live)  # the same child went on: no second one
    saved = transcript(live.record.directory.parent / child_meta.session_id)
    assert [m["content"] for m in saved if m["role"] == "user"] == ["read data.txt", "also give the first word"]
    assert tool_pairs_complete(saved)


async def test_a_background_child_is_read_with_its_output_and_an_unknown_id_is_refused_naming_the_known_ones(
        project, opened, fake_api):
    gate = threading.Event()
    fake_api.add(Turn(text="background answer"), when=is_agent(READER_MARK), gate=gate)
    live = await opened()
    spawn = live.coordinator.get_capability("session.spawn")
    output = live.coordinator.get_capability("session.subagent_output")
    started = await spawn("reader", "read data.txt", live.session, None, "child-1", background=True)
    assert started == {"session_id": "child-1", "agent": "reader", "status": "running", "background": True,
                       "depth": 1}
    assert (await output("child-1"))["status"] == "running"
    assert (await output("child-1", wait=True, timeout=0.01))["status"] == "running"  # the wait ran out
    with pytest.raises(SubAgentError, match=r"'nope' is not a sub-agent started in this session.*child-1 \(reader"):
        await output("nope")
    gate.set()
    report = await output("child", wait=True, timeout=WAIT)  # a unique prefix is enough
    assert report["status"] == "completed" and report["response"] == "background answer"
    assert [child.session_id for child in children_of(live)] == ["child-1"]
