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
    level = root.level
    coordinator = MockCoordinator()
    cleanup = await hooks_otel.mount(coordinator, {"endpoint": closed_port(), "flush_timeout": 10})
    root.addHandler(seen)  # from this pipeline's mount on (it resets the one-line report)
    root.setLevel(logging.DEBUG)
    try:
        await one_turn(coordinator)
        started = time.monotonic()
        cleanup()
        assert time.monotonic() - started < 9  # the exporter's own bound (2 s) ends it, not the flush bound
    finally:
        root.removeHandler(seen)
        root.setLevel(level)
    assert [record.getMessage() for record in seen.records if record.levelno >= logging.WARNING] == []
    # the SDK's failure reports go to one process-wide handler that says the first after each mount, as one debug
    # line: an exporter of an earlier test in this worker, still giving up, may be the one it says; never more
    failures = [record for record in seen.records if "telemetry export failed" in record.getMessage()]
    assert len(failures) <= 1 and all(record.levelno == logging.DEBUG for record in failures)
