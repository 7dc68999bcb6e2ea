"""pytest fixtures over sessionkit, for conftest.py files to import (``from sessionkit.fixtures import ...``):
they are not registered suite-wide because ``coordinator`` would shadow the kernel plugin's fixture."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from amplifier_core.coordinator import ModuleCoordinator

from .recorders import PROVIDER_EVENTS, EventLog, SleepRecorder
from .sessions import SessionOpener


@pytest.fixture
def coordinator() -> ModuleCoordinator:
    """A real kernel coordinator with no session behind it."""
    return ModuleCoordinator(session=None)


@pytest.fixture
def event_log(coordinator: ModuleCoordinator) -> EventLog:
    """Records every PROVIDER_EVENTS event emitted on ``coordinator``."""
    return EventLog().listen(coordinator.hooks, PROVIDER_EVENTS)


@pytest.fixture
def recorded_sleeps() -> SleepRecorder:
    """Backoff delays, recorded instead of waited out (hand it to what retries as its sleep)."""
    return SleepRecorder()


@pytest.fixture
async def open_session() -> AsyncIterator[SessionOpener]:
    """Open whole sessions with ``await open_session(plan, workdir)``; all are cleaned up after the test."""
    opener = SessionOpener()
    yield opener
    await opener.close_all()


@pytest.fixture
async def made_providers() -> AsyncIterator[list[Any]]:
    """Providers a test built: append each, and it is closed after the test."""
    made: list[Any] = []
    yield made
    for provider in made:
        await provider.close()
