"""Server-to-client traffic, against the SDK-written test server over stdio (its own process: `grow` changes it):
tools/list_changed mounts the new tool before the next model request, progress notifications reach the working
indicator, and elicitation forms go to the app's asker or are declined when there is none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcptestserver import stdio_command
from mcptestserver.fixtures import stdio_server_env

from amplifier_core import HookResult
from amplifier_core.testing import MockCoordinator

pytestmark = pytest.mark.asyncio


async def _mount(tmp_path: Path, capabilities: dict[str, Any] | None = None) -> MockCoordinator:
    from amplifier_module_tool_mcp import mount

    command = stdio_command()
    coordinator = MockCoordinator()
    coordinator.register_capability("session.dir", str(tmp_path))
    coordinator.register_capability("session.working_dir", str(tmp_path))
    for name, value in (capabilities or {}).items():
        coordinator.register_capability(name, value)
    await mount(coordinator, {"read_config_files": False, "servers": {"t": {
        "command": command[0], "args": command[1:], "env": stdio_server_env()}}})
    return coordinator


async def test_a_tool_list_change_mounts_the_new_tool_before_the_next_request(tmp_path: Path) -> None:
    coordinator = await _mount(tmp_path)
    try:
        tools = coordinator.get("tools")
        assert "mcp__t__hello" not in tools
        assert (await tools["mcp__t__grow"].execute({"name": "hello"})).output == "added hello"
        results = await coordinator.hooks.emit("provider:request", {"provider": "p", "iteration": 2})
        assert isinstance(results, HookResult) and results.action == "continue"
        added = coordinator.get("tools")["mcp__t__hello"]
        assert (await added.execute({"text": "there"})).output == "hello: there"
        assert "mcp__t__echo" in coordinator.get("tools")  # the others stay
    finally:
        await coordinator.cleanup()


class _Indicator:
    def __init__(self) -> None:
        self.shown: list[tuple[str, str]] = []

    def tool_progress(self, name: str, text: str) -> None:
        self.shown.append((name, text))


async def test_progress_notifications_reach_the_working_indicator(tmp_path: Path) -> None:
    indicator = _Indicator()
    coordinator = await _mount(tmp_path, {"ui.working_indicator": indicator})
    try:
        assert (await coordinator.get("tools")["mcp__t__steps"].execute({"count": 3})).output == "3 steps done"
    finally:
        await coordinator.cleanup()
    assert indicator.shown == [("mcp__t__steps", f"step {n} of 3") for n in (1, 2, 3)]


async def test_an_elicitation_is_asked_through_the_app_or_declined_without_one(tmp_path: Path) -> None:
    asked: list[tuple[str, str, dict[str, Any]]] = []

    async def ask(server: str, message: str, schema: dict[str, Any]) -> dict[str, Any] | None:
        asked.append((server, message, schema))
        return {"name": "Ada"}

    coordinator = await _mount(tmp_path, {"mcp.elicit": ask})
    try:
        assert (await coordinator.get("tools")["mcp__t__ask_name"].execute({})).output == "hello Ada"
    finally:
        await coordinator.cleanup()
    [(server, message, schema)] = asked
    assert (server, message) == ("t", "What is your name?")
    assert schema["properties"]["name"]["type"] == "string"

    nobody = await _mount(tmp_path)
    try:
        assert (await nobody.get("tools")["mcp__t__ask_name"].execute({})).output == "no name (decline)"
    finally:
        await nobody.cleanup()
