"""Running one hook command: a shell in its own process group, the event JSON on its stdin, stdout and stderr
captured apart (bounded), and the whole group ended on timeout or cancellation, so a hook never outlives its
turn or hangs the session.

``start_hook_process`` is the one place a hook process is created; it applies the OS sandbox
(``amplifier_core.utils.sandbox``, the one tool-bash uses) when given a confinement.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from dataclasses import dataclass

from amplifier_core.utils.sandbox import Confinement

MAX_CAPTURE_BYTES = 1_000_000
"""Per stream; a hook printing more is cut (the rest is read and dropped so it never blocks on a full pipe)."""
KILL_GRACE_SECONDS = 1.0
"""After SIGTERM, how long the group may take to end before SIGKILL."""
DRAIN_SECONDS = 0.5
"""After the hook's shell exits: how long processes it left behind may keep its output open."""

SHELL = shutil.which("bash") or "/bin/sh"


@dataclass(frozen=True)
class HookRun:
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False


async def start_hook_process(command: str, *, cwd: str, env: dict[str, str],
                             confinement: Confinement | None = None) -> asyncio.subprocess.Process:
    """Start ``command`` under the shell (confined when ``confinement`` says so) with piped stdin/stdout/stderr,
    as the leader of a new session (its pid is its process group id; the sandbox launcher execs the shell in
    place, keeping it)."""
    argv = [SHELL, "-c", command]
    if confinement is not None:
        argv = confinement.argv(argv)
    return await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        cwd=cwd, env=env, start_new_session=True,
    )


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _read_capped(stream: asyncio.StreamReader | None, into: bytearray) -> None:
    if stream is None:
        return
    while chunk := await stream.read(65536):
        room = MAX_CAPTURE_BYTES - len(into)
        if room > 0:
            into.extend(chunk[:room])


async def _feed(stdin: asyncio.StreamWriter | None, data: bytes) -> None:
    """Write the event; a hook that exits without reading it is fine."""
    if stdin is None:
        return
    try:
        stdin.write(data)
        await stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            stdin.close()


async def _end_group(process: asyncio.subprocess.Process) -> None:
    """SIGTERM the group, wait up to the grace period for the shell to exit, then SIGKILL what is left."""
    _signal_group(process.pid, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(process.wait()), KILL_GRACE_SECONDS)
    _signal_group(process.pid, signal.SIGKILL)
    await process.wait()


def _decode(data: bytearray) -> str:
    return bytes(data).decode("utf-8", errors="replace")


async def run_hook_command(command: str, *, stdin_data: bytes, cwd: str, env: dict[str, str],
                           timeout: float, confinement: Confinement | None = None) -> HookRun:
    """Run ``command`` and return how it ended. Never leaves a process of the hook's group running when it
    returns or is cancelled."""
    process = await start_hook_process(command, cwd=cwd, env=env, confinement=confinement)
    stdout, stderr = bytearray(), bytearray()
    readers = asyncio.gather(_read_capped(process.stdout, stdout), _read_capped(process.stderr, stderr))
    feeder = asyncio.ensure_future(_feed(process.stdin, stdin_data))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    timed_out = False
    try:
        try:
            await asyncio.wait_for(asyncio.shield(process.wait()), timeout)
        except TimeoutError:
            timed_out = True
            await _end_group(process)
        remaining = max(0.0, min(DRAIN_SECONDS, deadline - loop.time())) if not timed_out else DRAIN_SECONDS
        try:
            await asyncio.wait_for(asyncio.shield(readers), remaining)
        except TimeoutError:  # something the hook started in the background still holds its output
            _signal_group(process.pid, signal.SIGKILL)
    except asyncio.CancelledError:
        _signal_group(process.pid, signal.SIGKILL)
        await asyncio.wait({readers}, timeout=KILL_GRACE_SECONDS)  # output closes once the group is gone
        raise
    finally:
        feeder.cancel()
        readers.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await readers
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await feeder
        if process.returncode is None:
            _signal_group(process.pid, signal.SIGKILL)
            with contextlib.suppress(Exception):
                await process.wait()
    return HookRun(exit_code=None if timed_out else process.returncode, stdout=_decode(stdout),
                   stderr=_decode(stderr), timed_out=timed_out)
