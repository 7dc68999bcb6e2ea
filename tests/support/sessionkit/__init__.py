"""Test helpers for modules that run inside sessions (providers first): an event log, a recorder that
stands in for backoff sleeps, and whole AmplifierSessions opened from a small mount plan.

Plain importable helpers; the pytest fixtures built on them live in ``sessionkit.fixtures`` and are imported
by the conftest.py of the test directories that use them."""

from __future__ import annotations

from .recorders import PROVIDER_EVENTS, EventLog, SleepRecorder
from .sessions import FAST_RETRIES, SessionOpener, provider_session_plan

__all__ = ["FAST_RETRIES", "PROVIDER_EVENTS", "EventLog", "SessionOpener", "SleepRecorder",
           "provider_session_plan"]
