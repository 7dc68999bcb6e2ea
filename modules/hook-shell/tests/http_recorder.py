"""A loopback HTTP server for http hooks: records every request and answers with what the test set, or holds the
answer until the test releases it (for timeouts)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class HookServer:
    status: int = 200
    answer: str = ""
    requests: list[Recorded] = field(default_factory=list)
    hold: threading.Event | None = None
    """When set, every answer waits until the event is set (or the server closes)."""
    _httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._httpd is not None
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/hook"

    def start(self) -> HookServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(Recorded(self.path, dict(self.headers.items()), body))
                if server.hold is not None:
                    server.hold.wait(30)
                data = server.answer.encode()
                self.send_response(server.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def close(self) -> None:
        if self.hold is not None:
            self.hold.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
