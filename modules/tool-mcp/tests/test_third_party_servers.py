"""Real third-party MCP servers from the package index, over stdio: mcp-server-time and mcp-server-git. Both
start once for the module (in parallel, as at session start)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from mcptestserver import module_server
from testkit.git_repos import run_git

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def coordinator(tmp_path_factory: pytest.TempPathFactory, mount_mcp) -> AsyncIterator[object]:
    base = tmp_path_factory.mktemp("third-party")
    repo = base / "repo"
    repo.mkdir()
    run_git("init", "--quiet", "--initial-branch=main", str(repo))
    (repo / "tracked.txt").write_text("one\n")
    run_git("add", "tracked.txt", cwd=repo)
    run_git("-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "--quiet", "-m", "first commit",
            cwd=repo)
    (repo / "untracked-file.txt").write_text("new\n")
    coordinator = await mount_mcp({"servers": {
        "time": module_server("mcp_server_time", "--local-timezone", "UTC"),
        "git": module_server("mcp_server_git", "--repository", str(repo)),
    }}, base / "session")
    yield coordinator
    await coordinator.cleanup()


async def test_each_server_tool_becomes_a_prefixed_kernel_tool_with_the_servers_schema(coordinator,
                                                                                      mcp_status) -> None:
    tools = coordinator.get("tools")
    assert {"mcp__time__get_current_time", "mcp__time__convert_time", "mcp__git__git_status",
            "mcp__git__git_log"} <= set(tools)
    schema = tools["mcp__time__get_current_time"].input_schema
    assert schema["required"] == ["timezone"]
    assert "IANA" in schema["properties"]["timezone"]["description"]
    rows = mcp_status(coordinator)
    assert rows["time"]["state"] == rows["git"]["state"] == "connected"
    assert rows["git"]["tools"] >= 10


async def test_time_server_answers_and_its_errors_are_failed_results(coordinator) -> None:
    tools = coordinator.get("tools")
    result = await tools["mcp__time__get_current_time"].execute({"timezone": "Asia/Tokyo"})
    assert result.success
    assert '"timezone": "Asia/Tokyo"' in result.output
    bad = await tools["mcp__time__get_current_time"].execute({"timezone": "Nowhere/Atlantis"})
    assert not bad.success
    assert "Nowhere/Atlantis" in bad.get_serialized_output()


async def test_git_server_reads_the_real_repository(coordinator) -> None:
    tools = coordinator.get("tools")
    status = await tools["mcp__git__git_status"].execute({"repo_path": str(_repo_of(coordinator))})
    assert status.success, status.output
    assert "untracked-file.txt" in status.output
    log = await tools["mcp__git__git_log"].execute({"repo_path": str(_repo_of(coordinator))})
    assert "first commit" in log.output


def _repo_of(coordinator) -> Path:
    spec = coordinator.get_capability("mcp.servers").connections["git"].definition.spec
    return Path(spec.args[spec.args.index("--repository") + 1])
