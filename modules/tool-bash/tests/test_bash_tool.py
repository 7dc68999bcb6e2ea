"""The bash tool: process groups, timeouts, truncation, cancellation, background jobs, policy and mounting."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from amplifier_module_tool_bash import BashConfig, BashTool, mount
from testkit.processes import process_alive

from amplifier_core.coordinator import ModuleCoordinator
from amplifier_core.module_config import ModuleConfigError


async def _eventually_dead(pid: int) -> bool:
    """A killed process vanishes asynchronously: wait for that condition (bounded), not for a fixed time."""

    def wait() -> bool:
        deadline = time.monotonic() + 5
        while process_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.005)
        return not process_alive(pid)

    return await asyncio.to_thread(wait)


async def _read_fifo(path: Path) -> str:
    """Block (in a thread) until the command under test writes its line: event-driven synchronisation."""
    return await asyncio.to_thread(path.read_text)


@pytest.fixture
async def coordinator(tmp_path: Path) -> ModuleCoordinator:
    coordinator = ModuleCoordinator(session=None)
    workdir = tmp_path / "work"
    workdir.mkdir()
    coordinator.register_capability("session.working_dir", str(workdir))
    return coordinator


@pytest.fixture
async def bash(coordinator: ModuleCoordinator):
    cleanup = await mount(coordinator, {"kill_grace_seconds": 0.2})
    yield coordinator.get("tools", "bash")
    await cleanup()


async def test_success_reports_output_and_failure_reports_exit_code(bash: BashTool) -> None:
    ok = await bash.execute({"command": "echo hello"})
    assert ok.success and ok.output == "hello"
    failed = await bash.execute({"command": "echo out; echo err >&2; exit 3"})
    assert not failed.success
    assert failed.output == "out\nerr\n[exit code 3]"
    assert failed.error["exit_code"] == 3 and "exited with code 3" in failed.error["message"]


async def test_runs_in_the_working_dir_with_stdin_closed(bash: BashTool, coordinator: ModuleCoordinator) -> None:
    result = await bash.execute({"command": "pwd; cat; echo after-cat"})
    assert result.output.splitlines() == [coordinator.get_capability("session.working_dir"), "after-cat"]


async def test_command_runs_in_its_own_process_group(bash: BashTool) -> None:
    result = await bash.execute({"command": "ps -o pgid= -p $$; echo $$"})
    pgid, pid = result.output.split()
    assert pgid == pid and int(pgid) != os.getpgid(0)


async def test_timeout_kills_the_group_even_a_child_ignoring_sigterm(bash: BashTool, tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    command = f"echo partial; bash -c 'trap \"\" TERM; echo $$ > {pidfile}; while :; do sleep 0.05; done' & wait"
    result = await bash.execute({"command": command, "timeout": 1})
    assert not result.success and result.error["timed_out"]
    assert result.output.startswith("partial\n")
    assert "[timed out after 1s" in result.output
    assert "timed out after 1 seconds" in result.error["message"]
    assert await _eventually_dead(int(pidfile.read_text()))


async def test_timeout_is_capped_by_max_timeout(coordinator: ModuleCoordinator) -> None:
    tool = BashTool(BashConfig(max_timeout=0.5, kill_grace_seconds=0.1), coordinator)
    result = await tool.execute({"command": "sleep 20", "timeout": 999})
    assert result.error["timed_out"] and "0.5" in result.error["message"]


async def test_long_output_keeps_head_and_tail_with_a_marker(coordinator: ModuleCoordinator) -> None:
    tool = BashTool(BashConfig(max_output_bytes=2000), coordinator)
    result = await tool.execute({"command": "seq 1 100000"})
    lines = result.output.splitlines()
    assert lines[:3] == ["1", "2", "3"] and lines[-1] == "100000"
    assert "omitted from the middle of 588895 bytes" in result.output
    assert len(result.output) < 2400


async def test_immediate_cancellation_kills_the_running_command(bash: BashTool, coordinator: ModuleCoordinator,
                                                                tmp_path: Path) -> None:
    fifo = tmp_path / "ready"
    os.mkfifo(fifo)
    task = asyncio.create_task(bash.execute({"command": f"echo before; echo go > {fifo}; sleep 30"}))
    await _read_fifo(fifo)
    await coordinator.request_cancel(immediate=True)
    result = await asyncio.wait_for(task, 5)
    assert not result.success and result.error["cancelled"]
    assert result.output.startswith("before\n[cancelled")


async def test_graceful_cancellation_lets_the_command_finish(bash: BashTool, coordinator: ModuleCoordinator,
                                                             tmp_path: Path) -> None:
    fifo = tmp_path / "ready"
    os.mkfifo(fifo)
    task = asyncio.create_task(bash.execute({"command": f"echo go > {fifo}; echo done"}))
    await _read_fifo(fifo)
    await coordinator.request_cancel(immediate=False)
    assert (await task).output == "done"


async def test_no_command_starts_once_immediately_cancelled(bash: BashTool, coordinator: ModuleCoordinator,
                                                            tmp_path: Path) -> None:
    await coordinator.request_cancel(immediate=True)
    result = await bash.execute({"command": f"touch {tmp_path / 'ran'}"})
    assert not result.success and not (tmp_path / "ran").exists()


async def test_task_cancellation_kills_the_group_and_propagates(bash: BashTool, tmp_path: Path) -> None:
    fifo = tmp_path / "ready"
    os.mkfifo(fifo)
    task = asyncio.create_task(bash.execute({"command": f"echo $$ > {fifo}; sleep 30"}))
    pid = int(await _read_fifo(fifo))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _eventually_dead(pid)


async def test_denied_command_is_not_run_and_reports_a_violation(bash: BashTool, coordinator: ModuleCoordinator,
                                                                 tmp_path: Path) -> None:
    seen = []

    async def record(event: str, data: dict) -> None:
        seen.append(data)

    coordinator.hooks.register("policy:violation", record, name="test")
    marker = tmp_path / "marker"
    result = await bash.execute({"command": f"touch {marker}; rm -rf ~"})
    assert not result.success and not marker.exists()
    assert "`rm -rf ~`" in result.error["message"] and "safety policy" in result.error["message"]
    assert seen and seen[0]["blocked_command"] == "rm -rf ~" and seen[0]["tool_name"] == "bash"


async def test_background_job_is_readable_and_ended_at_cleanup(coordinator: ModuleCoordinator,
                                                               tmp_path: Path) -> None:
    cleanup = await mount(coordinator, {"kill_grace_seconds": 0.2})
    bash = coordinator.get("tools", "bash")
    reader = coordinator.get("tools", "bash_output")
    fifo = tmp_path / "ready"
    os.mkfifo(fifo)
    started = await bash.execute({"command": f"echo first; echo $$ > {fifo}; sleep 30", "run_in_background": True})
    assert started.success and "bg1" in started.output
    pid = int(await _read_fifo(fifo))
    progress = await reader.execute({"id": "bg1"})
    assert progress.output.splitlines()[:2] == ["bg1 ('echo first; echo $$ > " + str(fifo) + "; sleep 30'): running",
                                                "first"]
    assert (await reader.execute({"id": "bg1"})).output.endswith("(no new output)")
    assert not (await reader.execute({"id": "nope"})).success
    await cleanup()
    assert await _eventually_dead(pid)


async def test_a_running_jobs_unfinished_last_line_waits_for_the_next_read(coordinator: ModuleCoordinator,
                                                                           tmp_path: Path) -> None:
    """A read between the two halves of a line (a key, say) would put each half in its own tool result, where
    neither can be recognised and masked: a running job's output is handed over in whole lines."""
    cleanup = await mount(coordinator, {"kill_grace_seconds": 0.2})
    bash = coordinator.get("tools", "bash")
    reader = coordinator.get("tools", "bash_output")
    ready, go = tmp_path / "ready", tmp_path / "go"
    os.mkfifo(ready)
    os.mkfifo(go)
    command = f"echo whole; printf deploy-tok; echo x > {ready}; read line < {go}; echo en-value-77; echo rest"
    try:
        assert (await bash.execute({"command": command, "run_in_background": True})).success
        await _read_fifo(ready)
        first = await reader.execute({"id": "bg1"})
        assert first.output.split("\n")[1:] == ["whole", ""]
        await asyncio.to_thread(go.write_text, "go\n")
        job = bash.jobs["bg1"]
        await asyncio.to_thread(job.process.wait, 10)
        second = await reader.execute({"id": "bg1"})
        assert second.output.splitlines()[1:] == ["deploy-token-value-77", "rest"]
    finally:
        await cleanup()


async def test_a_background_jobs_raw_output_is_in_no_named_file(coordinator: ModuleCoordinator, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The output is read before it is masked; a log file with a name would keep a printed key on disk (also
    after a crash, when cleanup never runs)."""
    monkeypatch.setenv("JOB_TOKEN", "job-token-value-42")
    cleanup = await mount(coordinator, {"kill_grace_seconds": 0.2, "pass_env": ["JOB_TOKEN"]})
    bash = coordinator.get("tools", "bash")
    ready = tmp_path / "ready"
    os.mkfifo(ready)
    try:
        await bash.execute({"command": f"echo $JOB_TOKEN; echo $$ > {ready}; sleep 30", "run_in_background": True})
        pid = int(await _read_fifo(ready))
        target = os.readlink(f"/proc/{pid}/fd/1")
        assert target.endswith(" (deleted)") or not os.path.exists(target), target
        read = await coordinator.get("tools", "bash_output").execute({"id": "bg1"})
        assert "job-token-value-42" in read.output  # the model still reads it (masking is for what is stored)
    finally:
        await cleanup()


async def test_processes_left_behind_by_a_foreground_command_are_ended_at_cleanup(
        coordinator: ModuleCoordinator, tmp_path: Path) -> None:
    cleanup = await mount(coordinator, {"kill_grace_seconds": 0.2})
    bash = coordinator.get("tools", "bash")
    result = await bash.execute({"command": "sleep 30 >/dev/null & echo $!"})
    pid = int(result.output.splitlines()[0])
    assert "still running" in result.output and process_alive(pid)
    await cleanup()
    assert await _eventually_dead(pid)


async def test_bad_input_is_an_error_result_not_an_exception(bash: BashTool) -> None:
    for bad in ({}, {"command": ""}, {"command": 5}, {"command": "ls", "timeout": -1}, {"command": "ls",
                                                                                      "timeout": "x"}):
        result = await bash.execute(bad)
        assert not result.success and result.error["message"]


async def test_max_concurrent_rejects_extra_commands(coordinator: ModuleCoordinator, tmp_path: Path) -> None:
    tool = BashTool(BashConfig(max_concurrent=1, kill_grace_seconds=0.1), coordinator)
    fifo = tmp_path / "ready"
    os.mkfifo(fifo)
    first = asyncio.create_task(tool.execute({"command": f"echo go > {fifo}; sleep 30", "timeout": 3}))
    await _read_fifo(fifo)
    second = await tool.execute({"command": "echo hi"})
    assert not second.success and "max_concurrent" in second.error["message"]
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first


def test_config_rejects_unknown_keys_and_bad_patterns() -> None:
    from amplifier_core.module_config import parse_module_config

    with pytest.raises(ModuleConfigError, match="did you mean 'timeout'"):
        parse_module_config(BashConfig, {"timout": 3}, "tool-bash")
    with pytest.raises(ModuleConfigError, match="invalid regex"):
        parse_module_config(BashConfig, {"denied_commands": ["re:("]}, "tool-bash")
    with pytest.raises(ModuleConfigError, match="safety_profile"):
        parse_module_config(BashConfig, {"safety_profile": "lax"}, "tool-bash")


async def test_config_keys_reach_the_tool(coordinator: ModuleCoordinator) -> None:
    await mount(coordinator, {"safety_profile": "unrestricted", "require_approval": True,
                              "allowed_commands": ["echo *"], "working_dir": "sub"})
    tool = coordinator.get("tools", "bash")
    assert tool.get_metadata() == {"requires_approval": True, "safety_profile": "unrestricted",
                                   "sandbox": "workspace-write"}
    assert not (await tool.execute({"command": "ls"})).success
    assert tool.working_dir().endswith("/work/sub")
    assert "working directory" in (await tool.execute({"command": "echo hi"})).error["message"]


async def test_tools_expose_json_schemas(bash: BashTool, coordinator: ModuleCoordinator) -> None:
    assert bash.input_schema["required"] == ["command"]
    assert coordinator.get("tools", "bash_output").input_schema["required"] == ["id"]


async def test_module_loads_through_the_kernel_loader(coordinator: ModuleCoordinator) -> None:
    from amplifier_core.loader import ModuleLoader

    mount_fn = await ModuleLoader(coordinator).load("tool-bash", {"timeout": 5})
    cleanup = await mount_fn(coordinator)
    assert coordinator.get("tools", "bash").config.timeout == 5
    await cleanup()


async def test_passes_the_kernel_tool_validator() -> None:
    from amplifier_core.validation import ToolValidator

    result = await ToolValidator().validate(Path(__file__).parents[1] / "amplifier_module_tool_bash")
    assert result.passed, result.summary()
