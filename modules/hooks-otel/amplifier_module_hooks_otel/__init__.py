"""hooks-otel: the session as OpenTelemetry traces and metrics, sent to an OTLP/HTTP collector.

A span per session, turn, provider request and tool call (sub-agent sessions under the tool call that started
them) and the GenAI token, duration and cost metrics; see ``tracer.py`` for the names and README.md for the
config keys. Off unless mounted: the app mounts it when OTEL_EXPORTER_OTLP_ENDPOINT (or
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, or a profile mounts it. The OpenTelemetry SDK is imported by
``mount()`` only, never by importing this package. A collector that is down or slow never fails or holds up
a run: exports run in the background and the last one, at session end, waits at most ``flush_timeout``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

from amplifier_core.module_config import parse_module_config

from .settings import OtelConfig, OtelSettings, resolve_settings

__amplifier_module_type__ = "hook"
__all__ = ["OtelConfig", "OtelSettings", "mount", "resolve_settings"]

logger = logging.getLogger(__name__)

MODULE_ID = "hooks-otel"


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], None] | None:
    """Register the span and metric handlers on the session's hooks; returns the cleanup that flushes."""
    parsed = parse_module_config(OtelConfig, config, MODULE_ID)
    settings = resolve_settings(parsed, os.environ)
    if settings is None:
        logger.debug("hooks-otel: OTEL_SDK_DISABLED is set; nothing is exported")
        return None
    from .pipeline import acquire_pipeline
    from .tracer import SessionTracer

    tracer = SessionTracer(coordinator, settings, acquire_pipeline(settings))
    tracer.register()
    return tracer.close
