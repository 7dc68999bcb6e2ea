"""Sandboxed commands have no network but through the tool's proxy: a host on the allow list is reached, any
other is asked (and refused when nobody answers), and the result names a refused host. Real processes in a real
network namespace, a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from amplifier_module_tool_bash import mount
from testkit.loopback_http import text_server

from amplifier_core.coordinator import ModuleCoordinator
from amplifier_support.capability_names import SANDBOX_NETWORK_ALLOW, SANDBOX_NETWORK_REMEMBER


@pytest.fixture
def server() -> Iterator[int]:
    with text_server(b"answer from loopback\n") as port:
        yield port


class _Approvals:
    """Answers every question with ``answer`` and keeps the prompts."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.prompts: list[str] = []

    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        self.prompts.append(prompt)
        return self.answer


async def _bash(project: Path, config: dict | None = None, approvals: _Approvals | None = None,
                settings_allow: list[str] | None = None):
    coordinator = ModuleCoordinator(session=None, approval_system=approvals)
    coordinator.register_capability("session.working_dir", str(project))
    remembered: list[str] = []
    coordinator.register_capability(SANDBOX_NETWORK_REMEMBER, remembered.append)
    if settings_allow is not None:
        coordinator.register_capability(SANDBOX_NETWORK_ALLOW, settings_allow)
    cleanup = await mount(coordinator, {"kill_grace_seconds": 0.2, **(config or {})})
    return coordinator.get("tools", "bash"), cleanup, remembered


def _curl(host: str, port: int) -> str:
    return f"curl -fsS -m 10 http://{host}:{port}/"


async def test_an_allowed_host_is_reached_through_the_proxy_and_no_other_host_is(tmp_path: Path, server: int) -> None:
    bash, cleanup, _ = await _bash(tmp_path, {"sandbox": {"network": {"allow": ["127.0.0.1"]}}})
    try:
        allowed = await bash.execute({"command": _curl("127.0.0.1", server)})
        other = await bash.execute({"command": _curl("localhost", server)})
        direct = await bash.execute({"command": f"curl -sS -m 5 --noproxy '*' http://127.0.0.1:{server}/"})
        status = bash.sandbox_status()
    finally:
        await cleanup()
    assert allowed.success and "answer from loopback" in allowed.output
    assert not other.success and "answer from loopback" not in other.output
    assert "[network: refused localhost: not on sandbox.network.allow" in other.output
    assert not direct.success and "answer from loopback" not in direct.output  # no way out but the proxy
    assert "only through amplifier's proxy" in status["summary"]


async def test_an_unlisted_host_is_asked_and_allowed_once_or_always(tmp_path: Path, server: int) -> None:
    once = _Approvals("Allow once")
    bash, cleanup, remembered = await _bash(tmp_path, approvals=once)
    try:
        first = await bash.execute({"command": _curl("localhost", server)})
        again = await bash.execute({"command": _curl("localhost", server)})
    finally:
        await cleanup()
    assert first.success and again.success and "answer from loopback" in again.output
    assert len(once.prompts) == 2 and "localhost" in once.prompts[0]  # "once" is one command
    assert remembered == []
    always = _Approvals("Always allow")
    bash, cleanup, remembered = await _bash(tmp_path, approvals=always)
    try:
        first = await bash.execute({"command": _curl("localhost", server)})
        again = await bash.execute({"command": _curl("localhost", server)})
    finally:
        await cleanup()
    assert first.success and again.success and len(always.prompts) == 1 and remembered == ["localhost"]


async def test_hosts_from_the_settings_are_allowed_and_nobody_to_ask_means_refused(tmp_path: Path,
                                                                                  server: int) -> None:
    bash, cleanup, _ = await _bash(tmp_path, settings_allow=["local*"])
    try:
        listed = await bash.execute({"command": _curl("localhost", server)})
        refused = await bash.execute({"command": _curl("127.0.0.1", server)})
    finally:
        await cleanup()
    assert listed.success and "answer from loopback" in listed.output
    assert not refused.success and "[network: refused 127.0.0.1" in refused.output


async def test_network_true_and_sandbox_off_keep_the_network_unconfined(tmp_path: Path, server: int) -> None:
    for config in ({"sandbox": {"network": True}}, {"sandbox": "off"}):
        bash, cleanup, _ = await _bash(tmp_path, config)
        try:
            result = await bash.execute({"command": f"curl -sS -m 5 --noproxy '*' http://127.0.0.1:{server}/"})
        finally:
            await cleanup()
        assert result.success and "answer from loopback" in result.output, config


async def test_a_background_job_refused_a_host_says_so_when_read(tmp_path: Path, server: int) -> None:
    bash, cleanup, _ = await _bash(tmp_path)
    try:
        started = await bash.execute({"command": _curl("localhost", server), "run_in_background": True})
        assert started.success
        await asyncio.to_thread(bash.jobs["bg1"].process.wait, 30)
        read = await bash.read_job("bg1")
    finally:
        await cleanup()
    assert "[network: refused localhost" in read.output
