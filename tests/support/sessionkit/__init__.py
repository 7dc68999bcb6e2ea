"""Test helpers for modules that run inside sessions (providers first): an event log, and a recorder that
stands in for backoff sleeps."""

from __future__ import annotations

from .recorders import PROVIDER_EVENTS, EventLog, SleepRecorder

__all__ = ["PROVIDER_EVENTS", "EventLog", "SleepRecorder"]
