"""web_fetch with broken input and answers: malformed URLs, charsets Python does not know, and a server that
trickles its headers. Each is an error result saying what is wrong, and no connection outlives the call."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from amplifier_module_tool_web import mount

from amplifier_core import ModuleCoordinator


class _Session:
    session_id = "s"
    parent_id = None
    config: dict[str, Any] = {}


async def _tools(config: dict[str, Any]) -> dict[str, Any]:
    coordinator = ModuleCoordinator(_Session())
    await mount(coordinator, {"allowed_hosts": ["127.0.0.1"], **config})
    return coordinator.get("tools")


class _Handler(BaseHTTPRequestHandler):
    disconnected = threading.Event()
    stop = threading.Event()

    def do_GET(self) -> None:
        if self.path == "/trickle-headers":
            self._trickle_headers()
            return
        if self.path == "/to-malformed":
            self.send_response(302)
            self.send_header("Location", "http://[::1/admin")
            self.end_headers()
            return
        charset = self.path.rsplit("/", 1)[-1]
        body = "caf\u00e9".encode("latin-1")
        self.send_response(200)
        self.send_header("Content-Type", f"text/plain; charset={charset}")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _trickle_headers(self) -> None:
        try:
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n")
            for _ in range(200):  # one header byte at a time, each within the per-read timeout; 10 s at most
                if _Handler.stop.is_set():
                    return
                self.wfile.write(b"X")
                self.wfile.flush()
                _Handler.stop.wait(0.05)
        except OSError:
            _Handler.disconnected.set()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.disconnected = threading.Event()
    _Handler.stop = threading.Event()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    _Handler.stop.set()
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize(("url", "expected"), [
    ("http://[::1", "malformed"),
    ("http://127.0.0.1:99999/", "port"),
    ("http://127.0.0.1:http/", "port"),
    ("http://" + "a" * 64 + ".test/", "a" * 64),
])
async def test_a_malformed_url_is_an_error_result(url: str, expected: str) -> None:
    result = await (await _tools({}))["web_fetch"].execute({"url": url})
    assert not result.success
    assert expected in result.error["message"] and url.rstrip("/") in result.error["message"]


async def test_a_redirect_to_a_malformed_url_is_an_error_result(server: str) -> None:
    result = await (await _tools({}))["web_fetch"].execute({"url": server + "/to-malformed"})
    assert not result.success and "http://[::1/admin" in result.error["message"]


@pytest.mark.parametrize("charset", ["x-no-such-charset", "base64"])
async def test_an_unknown_charset_is_an_error_result(server: str, charset: str) -> None:
    result = await (await _tools({}))["web_fetch"].execute({"url": f"{server}/{charset}"})
    assert not result.success
    assert f"charset {charset!r}" in result.error["message"]


async def test_a_known_charset_is_decoded(server: str) -> None:
    result = await (await _tools({}))["web_fetch"].execute({"url": f"{server}/latin-1"})
    assert result.success and result.output["content"] == "caf\u00e9"


async def test_headers_trickled_forever_end_at_the_budget_and_the_connection_is_closed(server: str) -> None:
    tools = await _tools({"timeout": 0.2, "max_redirects": 0})
    result = await tools["web_fetch"].execute({"url": server + "/trickle-headers"})
    assert not result.success and "timed out" in result.error["message"]
    # the connection was closed when the budget ended (it used to stay open, read by a thread nobody awaited)
    assert _Handler.disconnected.wait(5)
