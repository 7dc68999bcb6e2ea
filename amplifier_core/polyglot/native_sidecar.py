"""A native module (``transport = "rust"``): an executable started with ``--port N`` that serves the module proto
on 127.0.0.1:N and prints ``READY:<port>`` on stdout once it listens (2.0.2's handshake).

The host picks the free port, waits up to the startup timeout, wraps the command with the caller's process
wrapper (the app confines it with the sandbox as it confines other processes) and stops the process at cleanup.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import tempfile
from collections.abc import Awaitable, Callable
from typing import Any

from ..module_manifest import ModuleManifest
from .errors import PolyglotLoadError
from .grpc_mount import mount_grpc

DEFAULT_STARTUP_TIMEOUT = 10.0
STOP_GRACE = 5.0

ProcessWrapper = Callable[[list[str]], list[str]]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        process.terminate()
    try:
        await asyncio.wait_for(process.wait(), STOP_GRACE)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()


def _stderr_tail(stream: Any) -> str:
    stream.seek(0)
    text = stream.read().decode("utf-8", errors="replace").strip()
    return f"; its stderr ends: {text[-400:]}" if text else ""


async def _await_ready(manifest: ModuleManifest, process: asyncio.subprocess.Process, port: int,
                       timeout: float, stderr: Any) -> int:
    assert process.stdout is not None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        remaining = deadline - loop.time()
        try:
            line = await asyncio.wait_for(process.stdout.readline(), max(remaining, 0.0))
        except TimeoutError:
            raise PolyglotLoadError(
                f"Module '{manifest.module_id}': {manifest.artifact} did not print READY:<port> within {timeout:g} s "
                f"({manifest.where}){_stderr_tail(stderr)}. Make it listen on the port given by --port and print "
                f"READY:<port>, or raise [module] startup_timeout") from None
        if not line:
            await process.wait()
            raise PolyglotLoadError(
                f"Module '{manifest.module_id}': {manifest.artifact} exited (status {process.returncode}) before it "
                f"was ready ({manifest.where}){_stderr_tail(stderr)}")
        text = line.decode("utf-8", errors="replace").strip()
        if text.startswith("READY:"):
            value = text.removeprefix("READY:").strip()
            if not value.isdigit() or not 0 < int(value) < 65536:
                raise PolyglotLoadError(f"Module '{manifest.module_id}': {manifest.artifact} printed a malformed "
                                        f"ready line {text!r} (expected READY:{port})")
            return int(value)


async def _drain(stream: asyncio.StreamReader) -> None:
    """Read what the process prints after READY, so a chatty module never blocks on a full pipe."""
    while await stream.read(65536):
        pass


async def mount_native(manifest: ModuleManifest, coordinator: Any, config: dict[str, Any],
                       wrap: ProcessWrapper | None = None) -> Callable[[], Awaitable[None]]:
    """Start the module's executable, wait for its handshake, mount it over gRPC; the cleanup stops it."""
    assert manifest.artifact is not None
    port = free_port()
    argv = [str(manifest.artifact), "--port", str(port)]
    if wrap is not None:
        argv = wrap(argv)
    stderr = tempfile.TemporaryFile()
    try:
        process = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL,
                                                       stdout=asyncio.subprocess.PIPE, stderr=stderr,
                                                       cwd=str(manifest.directory))
    except OSError as error:
        stderr.close()
        raise PolyglotLoadError(f"Module '{manifest.module_id}': cannot start {manifest.artifact} "
                                f"({error.strerror or error}; {manifest.where}, key 'module.crate')") from None
    drain: asyncio.Task[None] | None = None
    try:
        ready_port = await _await_ready(manifest, process, port, manifest.startup_timeout or DEFAULT_STARTUP_TIMEOUT,
                                        stderr)
        assert process.stdout is not None
        drain = asyncio.create_task(_drain(process.stdout))
        grpc_cleanup = await mount_grpc(manifest, coordinator, config, endpoint=f"127.0.0.1:{ready_port}",
                                        key="module.crate")
    except BaseException:
        if drain is not None:
            drain.cancel()
        await _stop(process)
        stderr.close()
        raise

    async def cleanup() -> None:
        try:
            await grpc_cleanup()
        finally:
            await _stop(process)
            if drain is not None:
                drain.cancel()
            stderr.close()

    return cleanup
