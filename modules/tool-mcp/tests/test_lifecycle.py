"""No orphans: server processes end at cleanup and when amplifier is killed outright (stdin closes; a server
that ignores that gets SIGTERM through PR_SET_PDEATHSIG). And the SDK is not imported without servers."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mcptestserver import stdio_command
from mcptestserver.fixtures import stdio_server_env

HOST = textwrap.dedent('''
    import asyncio, json, sys
    from amplifier_core.testing import MockCoordinator
    from amplifier_module_tool_mcp import mount

    async def main():
        coordinator = MockCoordinator()
        await mount(coordinator, {"read_config_files": False, "servers": json.loads(sys.argv[1])})
        pid = (await coordinator.get("tools")["mcp__local__pid"].execute({})).output
        print(pid, flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())
''')


def _exited(pid: int, timeout: float) -> bool:
    """Wait for the process to end (a pidfd becomes readable at exit; no polling)."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([descriptor], [], [], timeout)
        return bool(readable)
    finally:
        os.close(descriptor)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _local_server(*extra: str) -> dict[str, object]:
    command = stdio_command()
    return {"local": {"command": command[0], "args": [*command[1:], *extra], "env": stdio_server_env()}}


async def test_cleanup_ends_the_server_process(mount_mcp, tmp_path: Path) -> None:
    coordinator = await mount_mcp({"servers": _local_server()}, tmp_path)
    pid = int((await coordinator.get("tools")["mcp__local__pid"].execute({})).output)
    assert _alive(pid)
    await coordinator.cleanup()
    assert _exited(pid, 10)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG and pidfd are Linux")
@pytest.mark.parametrize("extra", [(), ("--linger",)], ids=["exits-on-stdin-close", "ignores-stdin-close"])
def test_servers_end_when_amplifier_is_killed(extra: tuple[str, ...]) -> None:
    host = subprocess.Popen([sys.executable, "-c", HOST, json.dumps(_local_server(*extra))],
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    pid: int | None = None
    try:
        assert host.stdout is not None
        pid = int(host.stdout.readline())
        assert _alive(pid)
        host.kill()  # SIGKILL: no cleanup runs in the host
        host.wait()
        assert _exited(pid, 20), f"server {pid} outlived its host"
        pid = None
    finally:
        if host.poll() is None:
            host.kill()
        if pid is not None and _alive(pid):
            os.kill(pid, signal.SIGKILL)  # do not leave the orphan behind a failed test


def test_without_servers_the_sdk_is_not_imported(tmp_path: Path) -> None:
    probe = textwrap.dedent('''
        import asyncio, sys
        from amplifier_core.testing import MockCoordinator
        from amplifier_module_tool_mcp import mount
        coordinator = MockCoordinator()
        coordinator.register_capability("session.working_dir", sys.argv[1])
        asyncio.run(mount(coordinator, {}))
        print(sorted(name for name in sys.modules if name == "mcp" or name.startswith(("mcp.", "httpx"))))
    ''')
    result = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
