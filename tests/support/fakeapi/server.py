"""The HTTP server: routes requests to the matching rule and writes its reply byte-for-byte as each API does."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from . import render_anthropic, render_chat, render_responses
from .frames import Frame, IdSource, default_cut_index
from .request import ANTHROPIC, CHAT, MODELS, RESPONSES, UNKNOWN, RecordedRequest
from .rules import Reply, Rule
from .script import DROP, MALFORMED, STATUS, STREAM_CUT, STREAM_ERROR, Fault, Turn

API_PATHS = {"/v1/messages": ANTHROPIC, "/v1/chat/completions": CHAT, "/v1/responses": RESPONSES}
CONTROL_PREFIX = "/_fakeapi/"
DEFAULT_MODELS = ["fake-model-small", "fake-model-large"]


class FakeAPIServer:
    """Scripted fake of the Anthropic and OpenAI HTTP APIs on 127.0.0.1 (see the package docstring)."""

    def __init__(self, port: int = 0, *, hold_timeout: float = 30.0) -> None:
        self._requested_port = port
        self.hold_timeout = hold_timeout  # upper bound on any gate wait, so a forgotten gate cannot hang
        self.rules: list[Rule] = []
        self.requests: list[RecordedRequest] = []
        self.models: list[str] = list(DEFAULT_MODELS)
        self.ids = IdSource()
        self.closing = threading.Event()
        self._gates: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._journal_changed = threading.Condition(self._lock)
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle -----------------------------------------------------------------------------------
    def start(self) -> FakeAPIServer:
        httpd = ThreadingHTTPServer(("127.0.0.1", self._requested_port), _Handler)
        httpd.daemon_threads = True
        httpd.fake = self  # type: ignore[attr-defined]
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.closing.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeAPIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("FakeAPIServer is not running; use `with FakeAPIServer() as server:` or .start()")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """Base URL for the Anthropic SDK (it appends /v1/messages)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """Base URL for the OpenAI SDK (it appends /chat/completions or /responses)."""
        return f"{self.base_url}/v1"

    # scripting -----------------------------------------------------------------------------------
    def add(
        self,
        reply: Reply,
        *,
        when: Callable[[RecordedRequest], bool] | None = None,
        when_last_user_contains: str | None = None,
        when_last_tool_result_contains: str | None = None,
        when_first_user_contains: str | None = None,
        api: str | None = None,
        times: int | None = 1,
        repeat: bool = False,
        gate: threading.Event | None = None,
        delay: float = 0.0,
    ) -> Rule:
        """Append a rule. The first rule (in order added) whose matchers all hold answers a request."""
        rule = Rule(
            reply=reply,
            when=when,
            last_user_contains=when_last_user_contains,
            last_tool_result_contains=when_last_tool_result_contains,
            first_user_contains=when_first_user_contains,
            api=api,
            times=None if repeat else times,
            gate=gate,
            delay=delay,
        )
        with self._lock:
            self.rules.append(rule)
        return rule

    def add_turns(self, *replies: Reply) -> list[Rule]:
        """Script a plain sequence: each reply answers the next request, once."""
        return [self.add(reply) for reply in replies]

    def gate(self, name: str) -> threading.Event:
        """A named gate (created on first use); `POST /_fakeapi/gates/<name>` sets it from another process."""
        with self._lock:
            return self._gates.setdefault(name, threading.Event())

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until at least `count` requests were journaled (synchronisation without sleeps)."""
        deadline = time.monotonic() + timeout
        with self._journal_changed:
            while len(self.requests) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(
                        f"fakeapi: expected {count} request(s) within {timeout}s, got {len(self.requests)}"
                    )
                self._journal_changed.wait(remaining)
            return list(self.requests)

    def unused_rules(self) -> list[Rule]:
        """Rules with a finite count that were not fully consumed."""
        return [rule for rule in self.rules if rule.times is not None and not rule.exhausted]

    def assert_all_used(self) -> None:
        """Fail listing every scripted rule that no request consumed (catches a test that stopped early)."""
        unused = self.unused_rules()
        if unused:
            raise AssertionError("fakeapi: scripted rules never used: " + "; ".join(r.describe() for r in unused))

    @property
    def unmatched(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.outcome == "unmatched"]

    def hold(self, gate: threading.Event | None, delay: float) -> None:
        """Wait for `delay` seconds and/or until `gate` is set; returns early when the server stops."""
        if delay:
            self.closing.wait(delay)
        if gate is not None:
            deadline = time.monotonic() + self.hold_timeout
            while not gate.wait(0.05):
                if self.closing.is_set() or time.monotonic() > deadline:
                    return

    # internals used by the handler ---------------------------------------------------------------
    def _journal(self, request: RecordedRequest) -> None:
        with self._journal_changed:
            self.requests.append(request)
            self._journal_changed.notify_all()

    def _claim_rule(self, request: RecordedRequest) -> Rule | None:
        """Find and consume the first matching rule atomically (parallel requests never share a one-shot)."""
        with self._lock:
            for rule in self.rules:
                try:
                    ok = rule.matches(request)
                except Exception as error:  # a buggy predicate must not kill the handler thread
                    request.extra.setdefault("predicate_errors", []).append(repr(error))
                    ok = False
                if ok:
                    rule.hits += 1
                    rule.requests.append(request)
                    request.rule = rule
                    rule.matched.set()
                    return rule
        return None

    def journal_as_json(self) -> list[dict[str, Any]]:
        return [
            {
                "api": r.api,
                "method": r.method,
                "path": r.path,
                "headers": r.headers,
                "body": r.body,
                "outcome": r.outcome,
                "rule": r.rule.describe() if r.rule is not None else None,
            }
            for r in list(self.requests)
        ]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fakeapi/1"

    @property
    def fake(self) -> FakeAPIServer:
        return self.server.fake  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:
        return

    # routing -------------------------------------------------------------------------------------
    def do_GET(self) -> None:
        request = self._record(b"")
        path = request.path
        if path.startswith(CONTROL_PREFIX):
            self._control(request)
            return
        if path in ("/v1/models", "/models"):
            request.api = MODELS
            request.outcome = "models"
            self._send_json(200, self._models_body(request))
            return
        self._not_found(request)

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        request = self._record(raw)
        if request.path.startswith(CONTROL_PREFIX):
            self._control(request)
            return
        request.api = API_PATHS.get(request.path, UNKNOWN)
        if request.api == UNKNOWN:
            self._not_found(request)
            return
        if not isinstance(request.body, dict):
            request.outcome = "bad_request"
            self._send_error(request, 400, f"fakeapi: request body for {request.path} is not a JSON object", {})
            return
        rule = self.fake._claim_rule(request)
        if rule is None:
            request.outcome = "unmatched"
            message = (
                f"fakeapi: no script rule matched this {request.api} request "
                f"(last user text {request.last_user_text[:120]!r}, "
                f"last tool result {request.last_tool_result_text[:120]!r}, "
                f"{len(self.fake.rules)} rule(s), all exhausted or not matching). "
                "Add a rule with server.add(Turn(...)) or fix the matcher."
            )
            self._send_error(request, 500, message, {"x-should-retry": "false"})
            return
        self.fake.hold(rule.gate, rule.delay)
        try:
            reply = rule.resolve(request)
        except Exception as error:
            request.outcome = "reply_error"
            self._send_error(request, 500, f"fakeapi: the reply function raised {error!r}", {"x-should-retry": "false"})
            return
        if isinstance(reply, Fault):
            request.outcome = f"fault:{reply.kind}"
            self._fault(request, reply)
        else:
            request.outcome = "turn"
            self._turn(request, reply)

    def _record(self, raw: bytes) -> RecordedRequest:
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = RecordedRequest(
            api=UNKNOWN,
            method=self.command,
            path=urlsplit(self.path).path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            raw_body=raw,
        )
        request.extra["query"] = urlsplit(self.path).query
        if not request.path.startswith(CONTROL_PREFIX):
            self.fake._journal(request)
        return request

    # replies -------------------------------------------------------------------------------------
    def _turn(self, request: RecordedRequest, turn: Turn) -> None:
        if request.stream:
            self._stream(request, _render_stream(request, turn, self.fake.ids), turn)
        else:
            self._send_json(200, _render_json(request, turn, self.fake.ids))

    def _fault(self, request: RecordedRequest, fault: Fault) -> None:
        if fault.kind == STATUS:
            message = fault.message or f"fakeapi scripted HTTP {fault.status_code}"
            self._send_error(request, fault.status_code, message, fault.headers, fault.error_type)
        elif fault.kind == DROP:
            self._drop_connection()
        elif not request.stream:
            self._fault_without_stream(request, fault)
        else:
            turn = fault.partial_turn()
            frames = _render_stream(request, turn, self.fake.ids)
            cut = fault.after_frames if fault.after_frames is not None else default_cut_index(frames)
            sent = frames[:cut]
            if fault.kind == STREAM_ERROR:
                error_type = fault.error_type or "overloaded_error"
                sent.append(_stream_error_frame(request.api, error_type, fault.message or "Overloaded", len(sent)))
                self._stream(request, sent, turn)
            elif fault.kind == MALFORMED:
                sent.append(_malformed_frame(request.api))
                self._stream(request, sent, turn)
            elif fault.kind == STREAM_CUT:
                self._stream(request, sent, turn, abort=not fault.clean_end)

    def _fault_without_stream(self, request: RecordedRequest, fault: Fault) -> None:
        body = json.dumps(_render_json(request, fault.partial_turn(), self.fake.ids)).encode()
        if fault.kind == STREAM_ERROR:
            self._send_error(request, 500, fault.message or "Overloaded", {}, fault.error_type)
        elif fault.kind == MALFORMED:
            self._send_raw(200, body[: len(body) // 2], "application/json")
        else:  # STREAM_CUT: promise the whole body, send half, close
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self._write(body[: len(body) // 2])
            self._drop_connection()

    # low-level writing ---------------------------------------------------------------------------
    def _stream(self, request: RecordedRequest, frames: list[Frame], turn: Turn, *, abort: bool = False) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for frame in frames:
            if frame.hold:
                self.fake.hold(turn.chunk_gate, turn.chunk_delay)
            if not self._write(b"%x\r\n%s\r\n" % (len(frame.data), frame.data)):
                request.extra["client_disconnected"] = True
                self.close_connection = True
                return
        if abort:
            self._drop_connection()
            return
        if not self._write(b"0\r\n\r\n"):
            request.extra["client_disconnected"] = True
            self.close_connection = True

    def _write(self, data: bytes) -> bool:
        try:
            self.wfile.write(data)
            self.wfile.flush()
            return True
        except OSError:
            return False

    def _drop_connection(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _send_raw(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self._write(body)

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(payload).encode(), "application/json", headers)

    def _send_error(
        self,
        request: RecordedRequest,
        status: int,
        message: str,
        headers: dict[str, str],
        error_type: str | None = None,
    ) -> None:
        if request.api == ANTHROPIC:
            body = render_anthropic.error_body(status, message, error_type)
        else:
            body = render_chat.error_body(status, message, error_type)
        request.extra["error_message"] = message
        self._send_json(status, body, {"request-id": self.fake.ids.next("req"), **headers})

    def _not_found(self, request: RecordedRequest) -> None:
        request.outcome = "not_found"
        message = (
            f"fakeapi: no route {request.method} {request.path}; it serves POST /v1/messages, "
            "/v1/chat/completions, /v1/responses and GET /v1/models"
        )
        self._send_error(request, 404, message, {"x-should-retry": "false"})

    def _models_body(self, request: RecordedRequest) -> dict[str, Any]:
        names = self.fake.models
        if "anthropic-version" in request.headers:
            data = [
                {
                    "type": "model",
                    "id": name,
                    "display_name": name,
                    "created_at": "2025-01-01T00:00:00Z",
                    "lifecycle": "active",
                }
                for name in names
            ]
            return {
                "data": data,
                "has_more": False,
                "first_id": names[0] if names else None,
                "last_id": names[-1] if names else None,
            }
        data = [{"id": name, "object": "model", "created": 1735689600, "owned_by": "fakeapi"} for name in names]
        return {"object": "list", "data": data}

    def _control(self, request: RecordedRequest) -> None:
        """Out-of-band control for subprocess tests: release named gates, read the journal."""
        parts = request.path[len(CONTROL_PREFIX) :].strip("/").split("/")
        if request.method == "POST" and len(parts) == 2 and parts[0] == "gates":
            self.fake.gate(parts[1]).set()
            self._send_json(200, {"gate": parts[1], "set": True})
        elif request.method == "GET" and parts == ["requests"]:
            self._send_json(200, self.fake.journal_as_json())
        else:
            self._send_json(404, {"error": {"message": f"fakeapi: unknown control path {request.path}"}})


def _render_json(request: RecordedRequest, turn: Turn, ids: IdSource) -> dict[str, Any]:
    if request.api == ANTHROPIC:
        return render_anthropic.message(turn, request, ids)
    if request.api == CHAT:
        return render_chat.completion(turn, request, ids)
    return render_responses.response(turn, request, ids)


def _render_stream(request: RecordedRequest, turn: Turn, ids: IdSource) -> list[Frame]:
    if request.api == ANTHROPIC:
        return render_anthropic.stream(turn, request, ids)
    if request.api == CHAT:
        return render_chat.stream(turn, request, ids)
    return render_responses.stream(turn, request, ids)


def _stream_error_frame(api: str, error_type: str, message: str, sequence_number: int) -> Frame:
    if api == ANTHROPIC:
        return render_anthropic.stream_error_frame(error_type, message)
    if api == CHAT:
        return render_chat.stream_error_frame(error_type, message)
    return render_responses.stream_error_frame(error_type, message, sequence_number)


def _malformed_frame(api: str) -> Frame:
    if api == ANTHROPIC:
        return render_anthropic.malformed_frame()
    if api == CHAT:
        return render_chat.malformed_frame()
    return render_responses.malformed_frame()
