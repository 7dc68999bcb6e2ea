"""Native (``transport = "rust"``) modules: started with a free ``--port``, waited for until READY:<port> or the
startup timeout, wrapped by the loader's process wrapper (the app's sandbox) and stopped at cleanup."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from polyglot.layout import artifact_module
from polyglot.native import native_script

from amplifier_core import ModuleCoordinator
from amplifier_core.loader import ModuleLoader, ModuleValidationError

from .test_grpc_modules import BareSession, PathResolver


async def test_a_native_module_starts_serves_and_stops(tmp_path: Path) -> None:
    directory = artifact_module(tmp_path / "n", "rust", "tool", "upper", native_script(), executable=True)
    coordinator = ModuleCoordinator(session=BareSession())
    await coordinator.mount("module-source-resolver", PathResolver({"tool-native": directory}))
    loader = ModuleLoader(coordinator)
    wrapped: list[list[str]] = []
    loader.wrap_process = lambda argv: wrapped.append(argv) or argv
    cleanup = await (await loader.load("tool-native", {}))(coordinator)
    result = await coordinator.get("tools")["native_upper"].execute({"text": "shout"})
    port = wrapped[0][wrapped[0].index("--port") + 1]
    pids = [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
    running = [pid for pid in pids if _cmdline(pid).endswith(f"--port\0{port}")]
    await cleanup()
    assert (result.success, result.output) == (True, "SHOUT")
    assert wrapped[0][:2] == [str(directory / "upper"), "--port"]
    assert len(running) == 1
    assert not Path(f"/proc/{running[0]}").exists() or "zombie" in Path(f"/proc/{running[0]}/status").read_text()


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().rstrip("\0")
    except OSError:
        return ""


async def test_a_native_module_that_never_gets_ready_times_out_clearly(tmp_path: Path) -> None:
    directory = artifact_module(tmp_path / "n", "rust", "tool", "stuck", native_script(hang=True), executable=True,
                                extra="startup_timeout = 0.5\n")
    coordinator = ModuleCoordinator(session=BareSession())
    await coordinator.mount("module-source-resolver", PathResolver({"tool-stuck": directory}))
    with pytest.raises(ModuleValidationError) as raised:
        await (await ModuleLoader(coordinator).load("tool-stuck", {}))(coordinator)
    text = str(raised.value)
    assert "Module 'tool-stuck'" in text and "did not print READY:<port> within 0.5 s" in text
    assert "startup_timeout" in text


async def test_a_native_module_that_exits_early_says_so(tmp_path: Path) -> None:
    directory = artifact_module(tmp_path / "n", "rust", "tool", "broken",
                                b"#!/bin/sh\necho 'no config file' >&2\nexit 3\n", executable=True)
    coordinator = ModuleCoordinator(session=BareSession())
    await coordinator.mount("module-source-resolver", PathResolver({"tool-broken": directory}))
    with pytest.raises(ModuleValidationError, match=r"exited \(status 3\) before it was ready.*no config file"):
        await (await ModuleLoader(coordinator).load("tool-broken", {}))(coordinator)
