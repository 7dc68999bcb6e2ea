"""A collector that is down or hangs never fails or holds up a session: the export gives up within its bounds
and says so in one debug line, nothing on the user's terminal."""

from __future__ import annotations

import logging
import time

import amplifier_module_hooks_otel as hooks_otel
import pytest
from otlpreceiver import blackhole, closed_port

from amplifier_core.testing import MockCoordinator


@pytest.fixture(autouse=True)
def _no_otel_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED"):
        monkeypatch.delenv(name, raising=False)


async def one_turn(coordinator: MockCoordinator) -> None:
    await coordinator.hooks.emit("session:start", {})
    await coordinator.hooks.emit("execution:start", {"prompt": "hi"})
    await coordinator.hooks.emit("llm:response", {"provider": "anthropic", "model": "m", "status": "ok",
                                                  "duration_ms": 10, "usage": {"input_tokens": 1, "output_tokens": 1}})
    await coordinator.hooks.emit("execution:end", {"response": "hello", "status": "completed"})
    await coordinator.hooks.emit("session:end", {"status": "completed"})


async def test_a_hung_collector_costs_the_session_end_at_most_the_flush_timeout() -> None:
    with blackhole() as endpoint:
        coordinator = MockCoordinator()
        # export_timeout 30 s: without the flush bound the session end would wait that long (the SDK's own
        # shutdown waits up to 30 s more)
        cleanup = await hooks_otel.mount(coordinator, {"endpoint": endpoint, "export_timeout": 30,
                                                       "flush_timeout": 0.5})
        await one_turn(coordinator)
        started = time.monotonic()
        cleanup()
        assert time.monotonic() - started < 5


class _RootRecords(logging.Handler):
    """What reaches the root logger's handlers: the app's stderr handler is one of them."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def test_a_collector_that_is_down_is_one_debug_line_and_no_warning() -> None:
    root = logging.getLogger()
    seen = _RootRecords()
    root.addHandler(seen)
    level = root.level
    root.setLevel(logging.DEBUG)
    try:
        coordinator = MockCoordinator()
        endpoint = closed_port()
        cleanup = await hooks_otel.mount(coordinator, {"endpoint": endpoint, "flush_timeout": 10})
        await one_turn(coordinator)
        started = time.monotonic()
        cleanup()
        assert time.monotonic() - started < 9  # the exporter's own bound (2 s) ends it, not the flush bound
    finally:
        root.removeHandler(seen)
        root.setLevel(level)
    assert [record.getMessage() for record in seen.records if record.levelno >= logging.WARNING] == []
    # this session's failure only: an exporter of an earlier test in this process may still be giving up meanwhile
    port = endpoint.rsplit(":", 1)[1]
    failures = [record for record in seen.records
                if "telemetry export failed" in record.getMessage() and f"port={port}" in record.getMessage()]
    assert len(failures) == 1 and failures[0].levelno == logging.DEBUG
