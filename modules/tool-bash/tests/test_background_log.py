"""bash_output on a huge background log: the tail is read by seeking, in memory bounded by what is returned."""

from __future__ import annotations

import asyncio
import os
import tracemalloc
from pathlib import Path

from amplifier_module_tool_bash import mount

from amplifier_core.coordinator import ModuleCoordinator

_MB = 1024 * 1024
# grows the job's own log (its stdout) to 150 MB as a sparse hole, then prints lines after it
_GROW_LOG = ("python3 -c 'import os; os.ftruncate(1, 150 * 1024 * 1024); os.lseek(1, 0, os.SEEK_END)'; "
             "echo; echo second-to-last; printf 'last line\\n'")


async def test_a_150_mb_log_returns_its_last_bytes_without_reading_it_all(tmp_path: Path) -> None:
    coordinator = ModuleCoordinator(session=None)
    (tmp_path / "work").mkdir()
    coordinator.register_capability("session.working_dir", str(tmp_path / "work"))
    cleanup = await mount(coordinator, {"kill_grace_seconds": 0.2, "max_output_bytes": 100_000})
    bash = coordinator.get("tools", "bash")
    reader = coordinator.get("tools", "bash_output")
    try:
        assert (await bash.execute({"command": _GROW_LOG, "run_in_background": True})).success
        assert await asyncio.to_thread(bash.jobs["bg1"].process.wait, 30) == 0
        tracemalloc.start()
        try:
            result = await reader.execute({"id": "bg1"})
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert result.success
        lines = result.output.splitlines()
        assert lines[0].endswith("exited with code 0")
        skipped = 150 * _MB + len("\nsecond-to-last\nlast line\n") - 100_000
        assert lines[1] == f"[... first {skipped} bytes of new output skipped ...]"
        assert lines[-2:] == ["second-to-last", "last line"]
        assert len(result.output.encode()) < 100_500
        assert peak < 2 * _MB, f"returning 100 KB took {peak / _MB:.0f} MB"
        assert (await reader.execute({"id": "bg1"})).output.endswith("(no new output)")
    finally:
        await cleanup()


async def test_a_running_jobs_huge_output_is_cut_to_whole_lines(tmp_path: Path) -> None:
    """While a job runs only whole lines are handed over; that holds for the tail read by seeking too."""
    coordinator = ModuleCoordinator(session=None)
    (tmp_path / "work").mkdir()
    coordinator.register_capability("session.working_dir", str(tmp_path / "work"))
    ready = tmp_path / "ready"
    os.mkfifo(ready)
    cleanup = await mount(coordinator, {"kill_grace_seconds": 0.2, "max_output_bytes": 1_000})
    bash = coordinator.get("tools", "bash")
    reader = coordinator.get("tools", "bash_output")
    command = f"seq 1 5000; printf half-a-li; echo x > {ready}; sleep 30"
    try:
        assert (await bash.execute({"command": command, "run_in_background": True})).success
        await asyncio.to_thread(ready.read_text)
        lines = (await reader.execute({"id": "bg1"})).output.splitlines()
        assert lines[0].endswith("running") and lines[1].startswith("[... first ")
        assert lines[-1] == "5000" and "half" not in lines[-1]
        assert all(line.isdigit() for line in lines[3:])
    finally:
        await cleanup()
