"""The OpenTelemetry SDK side: tracer, meter and OTLP/HTTP exporters for one collector address.

Imported only by ``mount()``: the SDK costs import time no run without telemetry should pay. A run and its
sub-agents (each a session that mounts hooks-otel) share one pipeline, so the export happens once, when the last
of them ends. Nothing here may hold up or fail a run: spans leave in a background batch, each export request is
bounded by ``export_timeout``, the final flush by ``flush_timeout`` (a daemon thread the session stops waiting
for), no atexit handler is registered, and the SDK's own warnings become one debug line.
"""

from __future__ import annotations

import logging
import threading
from importlib import metadata
from typing import Any

from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from .settings import OtelSettings

logger = logging.getLogger(__name__)

SCOPE_NAME = "amplifier_module_hooks_otel"
SDK_LOGGERS = ("opentelemetry.sdk", "opentelemetry.exporter")
METRIC_INTERVAL_MS = 60_000  # a long chat exports its metrics once a minute; a run at its end
# Bucket boundaries the GenAI semantic conventions give for these two histograms.
TOKEN_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864)
DURATION_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92)


def _version() -> str:
    try:
        return metadata.version("amplifier")
    except metadata.PackageNotFoundError:
        return "unknown"


class _FailureToDebug(logging.Handler):
    """Takes the SDK's log records (export failures, retries) off the user's terminal: the first warning
    becomes one debug line of this module, the rest are dropped."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.reported = False

    def emit(self, record: logging.LogRecord) -> None:
        if not self.reported:
            self.reported = True
            logger.debug("hooks-otel: telemetry export failed; the data is dropped (%s)", record.getMessage())


_quiet_handler = _FailureToDebug()


def quiet_sdk_logs() -> None:
    """Route the SDK's loggers to ``_quiet_handler``; a new pipeline may report its first failure again."""
    _quiet_handler.reported = False
    for name in SDK_LOGGERS:
        sdk_logger = logging.getLogger(name)
        sdk_logger.propagate = False
        if _quiet_handler not in sdk_logger.handlers:
            sdk_logger.addHandler(_quiet_handler)


class Pipeline:
    """One tracer and one set of GenAI instruments, exporting to the settings' endpoints."""

    def __init__(self, settings: OtelSettings) -> None:
        quiet_sdk_logs()
        self.settings = settings
        self.users = 0
        version = _version()
        resource = Resource.create({"service.name": settings.service_name, "service.version": version})
        headers = dict(settings.headers) if settings.headers is not None else None
        self.tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False)
        self.span_exporter: OTLPSpanExporter | None = None
        if settings.traces_endpoint:
            self.span_exporter = OTLPSpanExporter(endpoint=settings.traces_endpoint, headers=headers,
                                                  timeout=settings.export_timeout)
            self.tracer_provider.add_span_processor(BatchSpanProcessor(
                self.span_exporter, export_timeout_millis=settings.export_timeout * 1000))
        self.tracer = self.tracer_provider.get_tracer(SCOPE_NAME, version)
        readers: list[Any] = []
        self.metric_exporter: OTLPMetricExporter | None = None
        if settings.metrics_endpoint:
            self.metric_exporter = OTLPMetricExporter(endpoint=settings.metrics_endpoint, headers=headers,
                                                      timeout=settings.export_timeout)
            readers.append(PeriodicExportingMetricReader(
                self.metric_exporter, export_interval_millis=METRIC_INTERVAL_MS,
                export_timeout_millis=settings.export_timeout * 1000))
        self.meter_provider = MeterProvider(resource=resource, metric_readers=readers, shutdown_on_exit=False)
        meter = self.meter_provider.get_meter(SCOPE_NAME, version)
        self.token_usage = meter.create_histogram(
            "gen_ai.client.token.usage", unit="{token}", description="Number of input and output tokens used",
            explicit_bucket_boundaries_advisory=TOKEN_BUCKETS)
        self.operation_duration = meter.create_histogram(
            "gen_ai.client.operation.duration", unit="s", description="GenAI operation duration",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS)
        self.cost = meter.create_counter(
            "amplifier.client.cost", unit="USD", description="What the model calls cost, as the providers price them")

    def shutdown(self, timeout: float) -> bool:
        """Export what is left and stop, waiting at most ``timeout`` seconds; True when it finished in time.
        An unreachable or silent collector costs the session at most ``timeout``: the flush thread is a daemon
        that is left behind, never joined again."""

        def flush() -> None:
            try:
                self.tracer_provider.shutdown()  # the batch's last export: one request, bounded by export_timeout
            except Exception as error:
                logger.debug("hooks-otel: shutting down the span exporter failed: %s", error)
            try:
                self.meter_provider.shutdown(timeout_millis=timeout * 1000)
            except Exception as error:
                logger.debug("hooks-otel: shutting down the metric exporter failed: %s", error)

        worker = threading.Thread(target=flush, name="hooks-otel-flush", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            logger.debug("hooks-otel: the collector did not take the last telemetry within %.1f s; dropped", timeout)
            return False
        return True


_pipelines: dict[tuple[object, ...], Pipeline] = {}
_lock = threading.Lock()


def acquire_pipeline(settings: OtelSettings) -> Pipeline:
    """The pipeline for these settings, made on first use; every acquire needs one ``release_pipeline``."""
    with _lock:
        pipeline = _pipelines.get(settings.pipeline_key)
        if pipeline is None:
            pipeline = _pipelines[settings.pipeline_key] = Pipeline(settings)
        pipeline.users += 1
        return pipeline


def release_pipeline(pipeline: Pipeline, flush_timeout: float) -> bool:
    """Drop one user; the last one flushes and shuts the pipeline down (bounded by ``flush_timeout``)."""
    with _lock:
        pipeline.users -= 1
        if pipeline.users > 0:
            return True
        if _pipelines.get(pipeline.settings.pipeline_key) is pipeline:
            del _pipelines[pipeline.settings.pipeline_key]
    return pipeline.shutdown(flush_timeout)
