"""A project's MCP servers (`.mcp.json`, `.amplifier/mcp.json`) start processes: tool-mcp reads them only when
the app says the user trusts the project (capability `session.project_trusted`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from amplifier_module_tool_mcp import mount

from amplifier_core.testing import MockCoordinator


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    marker = tmp_path / "started"
    server = {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w').close()"]}
    (project / ".amplifier").mkdir(parents=True)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"shared": server}}))
    (project / ".amplifier" / "mcp.json").write_text(json.dumps({"mcpServers": {"own": server}}))
    return project


async def _servers(project: Path, tmp_path: Path, trusted: object) -> set[str]:
    coordinator = MockCoordinator()
    coordinator.register_capability("session.dir", str(tmp_path / "session"))
    coordinator.register_capability("session.project_dir", str(project))
    coordinator.register_capability("session.working_dir", str(project))
    coordinator.register_capability("app.user_config_dir", str(tmp_path / "config"))
    if trusted is not None:
        coordinator.register_capability("session.project_trusted", trusted)
    try:
        await mount(coordinator, {"read_upstream_files": False, "startup_timeout": 10})
        return {row["name"] for row in coordinator.get_capability("mcp.status")()}
    finally:
        await coordinator.cleanup()


@pytest.mark.parametrize("trusted", [None, False, "yes"])
async def test_an_untrusted_projects_servers_are_not_read_or_started(tmp_path: Path, trusted: object) -> None:
    project = _project(tmp_path)
    assert await _servers(project, tmp_path, trusted) == set()
    assert not (tmp_path / "started").exists()


async def test_a_trusted_projects_servers_are_started(tmp_path: Path) -> None:
    project = _project(tmp_path)
    assert await _servers(project, tmp_path, True) == {"shared", "own"}
    assert (tmp_path / "started").exists()
