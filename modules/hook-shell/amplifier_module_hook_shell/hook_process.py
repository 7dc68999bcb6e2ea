"""Running one hook command: a shell in its own process group, the event JSON on its stdin, stdout and stderr
captured apart (bounded), and the whole group ended on timeout or cancellation, so a hook never outlives its
turn or hangs the session.

The shell's exit is watched on its own (``process_exited``), not through the end of its output: a process the
hook leaves behind holding stdout would otherwise keep the hook "running" until its timeout.

``start_hook_process`` is the one place a hook process is created; it applies the OS sandbox
(``amplifier_support.sandbox``, the one tool-bash uses) when given a confinement.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from dataclasses import dataclass

from amplifier_support.sandbox import Confinement

MAX_CAPTURE_BYTES = 1_000_000
"""Per stream; a hook printing more is cut (the rest is read and dropped so it never blocks on a full pipe)."""
KILL_GRACE_SECONDS = 1.0
"""After SIGTERM, how long the group may take to end before SIGKILL."""
DRAIN_SECONDS = 0.5
"""After the hook's shell exits: how long processes it left behind may keep its output open before they are
ended."""

SHELL = shutil.which("bash") or "/bin/sh"


@dataclass(frozen=True)
class HookRun:
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    failure: str | None = None
    """Why the hook gave no answer, when that is not an exit code (an http hook's status, an unreachable URL)."""


class HookProtocol(asyncio.SubprocessProtocol):
    """Collects stdout (fd 1) and stderr (fd 2) up to the cap and signals exit and end of output apart."""

    def __init__(self) -> None:
        self.output: dict[int, bytearray] = {1: bytearray(), 2: bytearray()}
        self.exited = asyncio.Event()
        self.output_closed = asyncio.Event()
        self._open_outputs = {1, 2}

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        buffer = self.output.get(fd)
        if buffer is not None and len(buffer) < MAX_CAPTURE_BYTES:
            buffer.extend(data[: MAX_CAPTURE_BYTES - len(buffer)])

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self._open_outputs.discard(fd)
        if not self._open_outputs:
            self.output_closed.set()

    def process_exited(self) -> None:
        self.exited.set()

    def text(self, fd: int) -> str:
        return bytes(self.output[fd]).decode("utf-8", errors="replace")


async def start_hook_process(command: str, *, cwd: str, env: dict[str, str], confinement: Confinement | None = None
                             ) -> tuple[asyncio.SubprocessTransport, HookProtocol]:
    """Start ``command`` under the shell (confined when ``confinement`` says so) with piped stdin/stdout/stderr,
    as the leader of a new session (its pid is its process group id; the sandbox launcher execs the shell in
    place, keeping it)."""
    argv = [SHELL, "-c", command]
    if confinement is not None:
        argv = confinement.argv(argv)
    loop = asyncio.get_running_loop()
    return await loop.subprocess_exec(
        HookProtocol, *argv,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        cwd=cwd, env=env, start_new_session=True,
    )


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


async def _wait(event: asyncio.Event, timeout: float) -> bool:
    try:
        await asyncio.wait_for(event.wait(), timeout)
    except TimeoutError:
        return False
    return True


async def _end_group(pgid: int, protocol: HookProtocol) -> None:
    """SIGTERM the group, up to the grace period for the shell to exit, then SIGKILL what is left."""
    _signal_group(pgid, signal.SIGTERM)
    await _wait(protocol.exited, KILL_GRACE_SECONDS)
    _signal_group(pgid, signal.SIGKILL)
    await _wait(protocol.exited, KILL_GRACE_SECONDS)


def _feed(transport: asyncio.SubprocessTransport, data: bytes) -> None:
    """Hand the event to stdin and close it; the transport buffers what the hook has not read yet, and a hook
    that exits without reading is fine."""
    stdin = transport.get_pipe_transport(0)
    if stdin is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.write(data)
        stdin.close()


async def run_hook_command(command: str, *, stdin_data: bytes, cwd: str, env: dict[str, str],
                           timeout: float, confinement: Confinement | None = None) -> HookRun:
    """Run ``command`` and return how it ended. No process of the hook's group that still holds its output is
    left running when this returns or is cancelled."""
    transport, protocol = await start_hook_process(command, cwd=cwd, env=env, confinement=confinement)
    pgid = transport.get_pid()
    timed_out = False
    try:
        _feed(transport, stdin_data)
        if not await _wait(protocol.exited, timeout):
            timed_out = True
            await _end_group(pgid, protocol)
        if not await _wait(protocol.output_closed, DRAIN_SECONDS):
            _signal_group(pgid, signal.SIGKILL)  # left behind by the hook, still holding its output
            await _wait(protocol.output_closed, KILL_GRACE_SECONDS)
    except asyncio.CancelledError:
        _signal_group(pgid, signal.SIGKILL)
        await _wait(protocol.output_closed, KILL_GRACE_SECONDS)  # closes once the group is gone
        raise
    finally:
        if transport.get_returncode() is None:
            _signal_group(pgid, signal.SIGKILL)
            await _wait(protocol.exited, KILL_GRACE_SECONDS)
        transport.close()
    return HookRun(exit_code=None if timed_out else transport.get_returncode(), stdout=protocol.text(1),
                   stderr=protocol.text(2), timed_out=timed_out)
