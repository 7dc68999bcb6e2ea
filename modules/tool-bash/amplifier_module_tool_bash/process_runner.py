"""Run one shell command in its own process group and always end that group: on timeout, on cancellation,
and when the coroutine itself is cancelled. Output is captured while it streams (stdout and stderr
interleaved, as a terminal shows them) into a bounded head/tail buffer, so partial output survives a kill."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from dataclasses import dataclass
from typing import IO

from .output_buffer import HeadTailBuffer

SHELL = "/bin/bash"
_DRAIN_SECONDS = 0.5  # after the shell exits: how long leftover processes may keep our pipe open


@dataclass
class RunOutcome:
    output: str
    exit_code: int | None
    total_bytes: int
    truncated: bool
    timed_out: bool = False
    cancelled: bool = False
    lingering_pgid: int | None = None  # a group that outlived the shell (``cmd &``); the caller tracks it


def signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to the process group; False when it no longer exists."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def group_alive(pgid: int) -> bool:
    return signal_group(pgid, 0)


class _Protocol(asyncio.SubprocessProtocol):
    def __init__(self, buffer: HeadTailBuffer) -> None:
        self.buffer = buffer
        self.exited = asyncio.Event()
        self.output_closed = asyncio.Event()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self.buffer.feed(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self.output_closed.set()

    def process_exited(self) -> None:
        self.exited.set()


async def _wait_any(events: list[asyncio.Event], timeout: float | None) -> None:
    waiters = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()


async def _end_group(pgid: int, protocol: _Protocol, grace: float) -> None:
    """SIGTERM the group, give it ``grace`` seconds to let go of the output pipe, then SIGKILL what is left."""
    signal_group(pgid, signal.SIGTERM)
    await _wait_any([protocol.output_closed], grace)
    signal_group(pgid, signal.SIGKILL)
    await _wait_any([protocol.output_closed], 1.0)


def shell_argv(command: str) -> list[str]:
    return [SHELL, "-c", command]


async def run_in_group(
    argv: list[str],
    *,
    cwd: str,
    env: dict[str, str],
    timeout: float,
    max_output_bytes: int,
    kill_grace: float,
    cancel_event: asyncio.Event,
) -> RunOutcome:
    """Run ``argv`` (``shell_argv(command)``, possibly wrapped by the sandbox; stdin from /dev/null) and return
    what it printed and how it ended."""
    loop = asyncio.get_running_loop()
    buffer = HeadTailBuffer(max_output_bytes)
    transport, protocol = await loop.subprocess_exec(
        lambda: _Protocol(buffer),
        *argv,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        cwd=cwd, env=env, start_new_session=True,
    )
    pgid = transport.get_pid()  # leader of its own session: its pid is the group id
    timed_out = cancelled = False
    lingering: int | None = None
    try:
        await _wait_any([protocol.exited, cancel_event], timeout)
        if protocol.exited.is_set():
            await _wait_any([protocol.output_closed], _DRAIN_SECONDS)
            if not protocol.output_closed.is_set() or group_alive(pgid):
                lingering = pgid if group_alive(pgid) else None
        else:
            cancelled = cancel_event.is_set()
            timed_out = not cancelled
            await _end_group(pgid, protocol, kill_grace)
            await _wait_any([protocol.exited], 1.0)
    except asyncio.CancelledError:
        signal_group(pgid, signal.SIGKILL)
        transport.close()
        raise
    exit_code = transport.get_returncode()
    output = buffer.text()
    transport.close()  # stop reading a pipe that leftover processes may still hold
    return RunOutcome(output=output, exit_code=exit_code, total_bytes=buffer.total_bytes,
                      truncated=buffer.truncated, timed_out=timed_out, cancelled=cancelled,
                      lingering_pgid=lingering)


def start_background(argv: list[str], *, cwd: str, env: dict[str, str], log: IO[bytes]) -> subprocess.Popen[bytes]:
    """Start ``argv`` detached from our pipes (output to the open file ``log``) in its own process group."""
    return subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
        cwd=cwd, env=env, start_new_session=True,
    )


async def end_group(pgid: int, grace: float, leader: subprocess.Popen[bytes] | None = None) -> None:
    """End a process group we no longer read from: SIGTERM, up to ``grace`` seconds, then SIGKILL.

    Nothing signals "group gone" for a group that is not our pipe's writer, so this polls (shutdown only)."""
    if signal_group(pgid, signal.SIGTERM):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while loop.time() < deadline and group_alive(pgid):
            if leader is not None:
                leader.poll()  # reap the leader so its zombie does not keep the group "alive"
            await asyncio.sleep(0.02)
        signal_group(pgid, signal.SIGKILL)
    if leader is not None:
        with contextlib.suppress(Exception):
            await asyncio.to_thread(leader.wait, 2.0)


async def end_background(process: subprocess.Popen[bytes], grace: float) -> None:
    """End a background command's whole group and reap its leader."""
    await end_group(process.pid, grace, leader=process)
