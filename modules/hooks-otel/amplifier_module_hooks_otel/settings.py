"""What hooks-otel exports and where: the module's config keys and the standard ``OTEL_*`` variables, read into
one ``OtelSettings``. No OpenTelemetry import here: parsing a config must stay cheap."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import Field

from amplifier_core.module_config import ModuleConfig

DEFAULT_ENDPOINT = "http://localhost:4318"  # the OTLP/HTTP default, used when the module is mounted with no endpoint
DEFAULT_SERVICE_NAME = "amplifier"
TRACES_PATH = "v1/traces"
METRICS_PATH = "v1/metrics"

ENDPOINT_VAR = "OTEL_EXPORTER_OTLP_ENDPOINT"
TRACES_ENDPOINT_VAR = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
METRICS_ENDPOINT_VAR = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"
SERVICE_NAME_VAR = "OTEL_SERVICE_NAME"
SDK_DISABLED_VAR = "OTEL_SDK_DISABLED"
CAPTURE_CONTENT_VAR = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


class OtelConfig(ModuleConfig):
    """The module's config keys (README.md lists them with their defaults)."""

    endpoint: str | None = None  # base URL of an OTLP/HTTP collector; /v1/traces and /v1/metrics are appended
    headers: dict[str, str] | None = None  # sent with every export (OTEL_EXPORTER_OTLP_HEADERS when unset)
    service_name: str | None = None
    capture_content: bool | None = None  # prompts, answers, tool arguments and results on spans
    metrics: bool = True
    export_timeout: float = Field(default=2.0, gt=0, le=60)  # seconds one export request may take
    flush_timeout: float = Field(default=1.5, gt=0, le=30)  # seconds the end of a session may wait for the export
    max_content_length: int = Field(default=8192, ge=64)  # characters kept of one captured value
    priority: int = 950  # late: spans see what other hooks decided (a denied tool call ends as an error)


@dataclass(frozen=True)
class OtelSettings:
    """Where spans and metrics go (None: not exported) and what goes with them."""

    traces_endpoint: str | None
    metrics_endpoint: str | None
    headers: tuple[tuple[str, str], ...] | None
    service_name: str
    capture_content: bool
    export_timeout: float
    flush_timeout: float
    max_content_length: int
    priority: int = 950

    @property
    def pipeline_key(self) -> tuple[object, ...]:
        """Sessions whose settings share this key share one exporter pipeline (a run and its sub-agents)."""
        return (self.traces_endpoint, self.metrics_endpoint, self.headers, self.service_name, self.export_timeout)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("true", "1", "yes", "on")


def signal_url(base: str, path: str) -> str:
    """``base`` (a collector's base URL, as OTEL_EXPORTER_OTLP_ENDPOINT) with a signal's path appended."""
    return f"{base.rstrip('/')}/{path}"


def resolve_settings(config: OtelConfig, environ: Mapping[str, str]) -> OtelSettings | None:
    """The settings of one mount, or None when OTEL_SDK_DISABLED=true turns telemetry off.

    The config's ``endpoint`` wins; else the signal-specific variables, then OTEL_EXPORTER_OTLP_ENDPOINT for
    the signals they leave open; a module mounted with none of them exports to the OTLP default
    (localhost:4318). A signal-specific variable alone exports only that signal: metrics never go to an
    address the user did not name because traces were configured."""
    if _truthy(environ.get(SDK_DISABLED_VAR)):
        return None
    if config.endpoint:
        traces: str | None = signal_url(config.endpoint, TRACES_PATH)
        metrics: str | None = signal_url(config.endpoint, METRICS_PATH)
    else:
        base = (environ.get(ENDPOINT_VAR) or "").strip()
        traces = (environ.get(TRACES_ENDPOINT_VAR) or "").strip() or None
        metrics = (environ.get(METRICS_ENDPOINT_VAR) or "").strip() or None
        if base:
            traces = traces or signal_url(base, TRACES_PATH)
            metrics = metrics or signal_url(base, METRICS_PATH)
        elif traces is None and metrics is None:
            traces = signal_url(DEFAULT_ENDPOINT, TRACES_PATH)
            metrics = signal_url(DEFAULT_ENDPOINT, METRICS_PATH)
    if not config.metrics:
        metrics = None
    capture = config.capture_content if config.capture_content is not None else _truthy(
        environ.get(CAPTURE_CONTENT_VAR))
    headers = tuple(sorted(config.headers.items())) if config.headers is not None else None
    service_name = config.service_name or (environ.get(SERVICE_NAME_VAR) or "").strip() or DEFAULT_SERVICE_NAME
    return OtelSettings(
        traces_endpoint=traces, metrics_endpoint=metrics, headers=headers, service_name=service_name,
        capture_content=capture, export_timeout=config.export_timeout, flush_timeout=config.flush_timeout,
        max_content_length=config.max_content_length, priority=config.priority,
    )

