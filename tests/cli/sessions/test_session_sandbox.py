"""The sandbox is session data (capability `session.sandbox`): the profile's `sandbox:` is the default under a
confined module's own keys, `--sandbox` forces the mode over both, the plan is never rewritten, and a
sub-agent runs its commands under its parent's `--sandbox`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fakeapi import ToolCall, Turn
from testkit.agent_profiles import is_agent, is_parent, write_agent, write_profile

from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.sessions.factory import PLAN_FILE, LiveSession, SessionRequest, open_session
from amplifier_support.capability_names import SANDBOX_STATUS, SESSION_SANDBOX, SESSION_SANDBOX_MODE
from amplifier_support.sandbox.settings import session_sandbox, under_session_sandbox

WORKER_MARK = "WORKER-AGENT-MARK"


def test_defaults_go_under_the_module_keys_and_the_forced_mode_over_both() -> None:
    session = session_sandbox({"mode": "read-only", "network": False, "write_roots": ["/srv"]}, None)
    assert under_session_sandbox({"network": True}, session) == {
        "mode": "read-only", "network": True, "write_roots": ["/srv"]}
    assert under_session_sandbox("off", session)["mode"] == "off"  # the module's own shorthand still wins
    forced = session_sandbox("read-only", "workspace-write")
    assert under_session_sandbox({"mode": "off", "network": False}, forced) == {
        "mode": "workspace-write", "network": False}
    assert under_session_sandbox(False, forced) == {"mode": "workspace-write"}  # YAML's bare `off`


def test_a_session_that_sets_nothing_leaves_the_value_for_the_schema_to_judge() -> None:
    assert under_session_sandbox({"mode": "sometimes"}, None) == {"mode": "sometimes"}
    assert under_session_sandbox(None, session_sandbox(None, None)) is None
    assert under_session_sandbox(42, session_sandbox(None, "off")) == 42  # the module's error names its key


@pytest.fixture
async def opened(project_dir: Path, anthropic_env: Any):
    sessions: list[LiveSession] = []

    async def open_(**request: Any) -> LiveSession:
        live = await open_session(SessionRequest(profile="agents-test", **request), paths=AmplifierPaths.discover())
        sessions.append(live)
        return live

    yield open_
    for live in sessions:
        await live.close()


def _boxed_profile(project: Path) -> None:
    bash = {"module": "tool-bash", "config": {"sandbox": {"network": True}}}
    write_profile(project, tools=[{"module": "tool-task"}, bash], sandbox={"mode": "read-only", "network": False})


async def test_the_profile_default_and_the_module_keys_reach_the_shell_tool(project_dir, opened) -> None:
    _boxed_profile(project_dir)
    live = await opened()

    status = live.coordinator.get_capability(SANDBOX_STATUS)()
    assert (status["mode"], status["network"]) == ("read-only", True)
    assert live.coordinator.get_capability(SESSION_SANDBOX_MODE) == "read-only"
    assert live.coordinator.get_capability(SESSION_SANDBOX) == {
        "defaults": {"mode": "read-only", "network": False}, "mode": None}
    [bash] = [entry for entry in live.built.plan["tools"] if entry["module"] == "tool-bash"]
    assert bash["config"] == {"sandbox": {"network": True}}  # the plan says what the profile says, no more


async def test_the_sandbox_flag_wins_and_the_saved_plan_is_not_rewritten(project_dir, opened) -> None:
    _boxed_profile(project_dir)
    live = await opened(sandbox="off")

    status = live.coordinator.get_capability(SANDBOX_STATUS)()
    assert (status["mode"], status["network"]) == ("off", True)
    assert live.coordinator.get_capability(SESSION_SANDBOX_MODE) == "off"
    saved = json.loads((live.record.directory / PLAN_FILE).read_text())
    [bash] = [entry for entry in saved["tools"] if entry["module"] == "tool-bash"]
    assert bash["config"] == {"sandbox": {"network": True}}


async def test_a_sub_agent_runs_its_commands_under_the_parents_sandbox_flag(project_dir, opened, fake_api) -> None:
    write_profile(project_dir, tools=[{"module": "tool-task"}, {"module": "tool-bash"}])
    write_agent(project_dir, "worker", f"{WORKER_MARK}: you run commands.")
    worker = is_agent(WORKER_MARK)
    fake_api.add(Turn(tool_calls=[ToolCall("task", {"agent": "worker", "instruction": "make the file"})]),
                 when=lambda r: is_parent(r) and r.last_user_text == "go")
    fake_api.add(Turn(tool_calls=[ToolCall("bash", {"command": "echo made > made.txt"})]),
                 when=lambda r: worker(r) and r.last_user_text == "make the file")
    fake_api.add(Turn(text="tried"), when=lambda r: worker(r) and r.last_tool_result_text)
    fake_api.add(Turn(text="done"), when=lambda r: is_parent(r) and "tried" in r.last_tool_result_text)
    live = await opened(sandbox="read-only")

    assert await live.execute("go") == "done"

    child_result = next(r.last_tool_result_text for r in fake_api.requests if worker(r) and r.last_tool_result_text)
    assert "Blocked by the sandbox" in child_result and "read-only" in child_result
    assert not (project_dir / "made.txt").exists()
