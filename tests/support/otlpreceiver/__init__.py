"""otlpreceiver: a minimal OTLP/HTTP collector on 127.0.0.1 for tests.

It accepts ``POST /v1/traces`` and ``POST /v1/metrics`` (protobuf, optionally gzip) the way a real collector
does, decodes them with the opentelemetry-proto classes and keeps what arrived: ``spans()`` flattens every
received span into a ``ReceivedSpan``; ``metric_points(name)`` gives the data points of one metric. Requests'
headers are kept too (``requests``), so a test can check what an exporter sent.

``blackhole()`` is the opposite: a port that accepts connections and never answers (a collector that hangs).
"""

from __future__ import annotations

import gzip
import socket
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

__all__ = ["MetricPoint", "OTLPReceiver", "ReceivedRequest", "ReceivedSpan", "blackhole", "closed_port"]

SPAN_KINDS = {0: "UNSPECIFIED", 1: "INTERNAL", 2: "SERVER", 3: "CLIENT", 4: "PRODUCER", 5: "CONSUMER"}
STATUS_CODES = {0: "UNSET", 1: "OK", 2: "ERROR"}


def _any_value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [_any_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return {item.key: _any_value(item.value) for item in value.kvlist_value.values}
    return getattr(value, kind)


def _attributes(items: Any) -> dict[str, Any]:
    return {item.key: _any_value(item.value) for item in items}


@dataclass
class ReceivedSpan:
    name: str
    trace_id: str
    span_id: str
    parent_span_id: str  # "" for a root span
    kind: str
    attributes: dict[str, Any]
    status: str
    status_message: str
    resource: dict[str, Any]
    scope: str
    start_ns: int
    end_ns: int


@dataclass
class MetricPoint:
    name: str
    unit: str
    attributes: dict[str, Any]
    value: float  # a sum's value, a histogram's sum
    count: int | None  # a histogram's count
    resource: dict[str, Any] = field(default_factory=dict)


@dataclass
class ReceivedRequest:
    path: str
    headers: dict[str, str]
    body: bytes


class OTLPReceiver:
    """An OTLP/HTTP receiver on a free loopback port; ``endpoint`` is its base URL (OTEL_EXPORTER_OTLP_ENDPOINT)."""

    def __init__(self) -> None:
        self.requests: list[ReceivedRequest] = []
        self.traces: list[ExportTraceServiceRequest] = []
        self.metrics: list[ExportMetricsServiceRequest] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def endpoint(self) -> str:
        assert self._httpd is not None, "the receiver is not running"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> OTLPReceiver:
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        httpd.daemon_threads = True
        httpd.receiver = self  # type: ignore[attr-defined]
        self._httpd = httpd
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> OTLPReceiver:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    def record(self, path: str, headers: dict[str, str], body: bytes) -> bytes | None:
        """Decode one export; the response body, or None for a path that is not an OTLP signal."""
        with self._lock:
            self.requests.append(ReceivedRequest(path, headers, body))
            if path == "/v1/traces":
                self.traces.append(ExportTraceServiceRequest.FromString(body))
                return ExportTraceServiceResponse().SerializeToString()
            if path == "/v1/metrics":
                self.metrics.append(ExportMetricsServiceRequest.FromString(body))
                return ExportMetricsServiceResponse().SerializeToString()
        return None

    # -- what arrived --------------------------------------------------------------------------------------
    def spans(self) -> list[ReceivedSpan]:
        found = []
        with self._lock:
            exports = list(self.traces)
        for export in exports:
            for resource_spans in export.resource_spans:
                resource = _attributes(resource_spans.resource.attributes)
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        found.append(ReceivedSpan(
                            name=span.name, trace_id=span.trace_id.hex(), span_id=span.span_id.hex(),
                            parent_span_id=span.parent_span_id.hex(), kind=SPAN_KINDS.get(span.kind, str(span.kind)),
                            attributes=_attributes(span.attributes), status=STATUS_CODES.get(span.status.code, "?"),
                            status_message=span.status.message, resource=resource, scope=scope_spans.scope.name,
                            start_ns=span.start_time_unix_nano, end_ns=span.end_time_unix_nano,
                        ))
        return found

    def metric_points(self, name: str) -> list[MetricPoint]:
        points = []
        with self._lock:
            exports = list(self.metrics)
        for export in exports:
            for resource_metrics in export.resource_metrics:
                resource = _attributes(resource_metrics.resource.attributes)
                for scope_metrics in resource_metrics.scope_metrics:
                    for metric in scope_metrics.metrics:
                        if metric.name != name:
                            continue
                        kind = metric.WhichOneof("data")
                        for point in getattr(metric, kind).data_points:
                            if kind == "histogram":
                                value, count = point.sum, point.count
                            else:
                                value = point.as_double if point.WhichOneof("value") == "as_double" else point.as_int
                                count = None
                            points.append(MetricPoint(name, metric.unit, _attributes(point.attributes), value, count,
                                                      resource))
        return points

    def raw_bodies(self) -> bytes:
        """Every decoded request body concatenated (to check that a text never left the process)."""
        with self._lock:
            return b"".join(request.body for request in self.requests)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        encoding = (self.headers.get("Content-Encoding") or "").lower()
        if encoding == "gzip":
            body = gzip.decompress(body)
        elif encoding == "deflate":
            body = zlib.decompress(body)
        headers = {key.lower(): value for key, value in self.headers.items()}
        reply = self.server.receiver.record(self.path, headers, body)  # type: ignore[attr-defined]
        if reply is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read the journal, not stderr
        return


@contextmanager
def blackhole() -> Iterator[str]:
    """The base URL of a loopback port that accepts connections and never answers (a hung collector)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)  # the kernel completes connections into the backlog; nothing ever reads them
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()


def closed_port() -> str:
    """The base URL of a loopback port nothing listens on (a collector that is down): connections are refused."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return f"http://127.0.0.1:{port}"
