"""tool-mcp tests: the SDK-written test server of tests/support/mcptestserver as a real process, and a helper
that mounts the module on a real coordinator with the session capabilities the app gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from amplifier_module_tool_mcp import mount

from amplifier_core.testing import MockCoordinator


async def _mount_mcp(config: dict[str, Any], session_dir: Path, working_dir: Path | None = None) -> MockCoordinator:
    coordinator = MockCoordinator()
    coordinator.register_capability("session.dir", str(session_dir))
    coordinator.register_capability("session.working_dir", str(working_dir or session_dir))
    await mount(coordinator, {"read_config_files": False, **config})
    return coordinator


@pytest.fixture(scope="session")
def mount_mcp() -> Any:
    """``await mount_mcp(config, session_dir)`` -> a coordinator with tool-mcp mounted (no config files read)."""
    return _mount_mcp


def status_rows(coordinator: Any) -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in coordinator.get_capability("mcp.status")()}


@pytest.fixture(scope="session")
def mcp_status() -> Any:
    """``mcp_status(coordinator)`` -> {server name: status row}."""
    return status_rows
