"""web_fetch against hostile answers: IPv6 forms embedding a private IPv4, DNS answers mixing public and
private addresses, and a server that trickles its body forever."""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from amplifier_module_tool_web import mount
from amplifier_module_tool_web.address_policy import address_class

from amplifier_core import ModuleCoordinator


class _Session:
    session_id = "s"
    parent_id = None
    config: dict[str, Any] = {}


async def _tools(config: dict[str, Any]) -> dict[str, Any]:
    coordinator = ModuleCoordinator(_Session())
    await mount(coordinator, config)
    return coordinator.get("tools")


@pytest.mark.parametrize(("address", "embedded"), [
    ("64:ff9b::7f00:1", "127.0.0.1"),        # NAT64 well-known prefix
    ("64:ff9b::a9fe:a9fe", "169.254.169.254"),
    ("64:ff9b:1::a00:1", "10.0.0.1"),        # local-use NAT64 prefix
    ("2002:7f00:1::", "127.0.0.1"),          # 6to4
    ("::7f00:1", "127.0.0.1"),               # IPv4-compatible (deprecated)
    ("::ffff:0:a00:1", "10.0.0.1"),          # IPv4-translated (SIIT)
])
def test_ipv6_forms_embedding_a_private_ipv4_are_refused(address: str, embedded: str) -> None:
    reason = address_class(ipaddress.ip_address(address))
    assert reason is not None
    assert reason == address_class(ipaddress.ip_address(embedded))


def test_ipv6_forms_embedding_a_public_ipv4_stay_public() -> None:
    assert address_class(ipaddress.ip_address("64:ff9b::808:808")) is None


async def test_a_name_with_one_private_answer_among_public_ones_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port)),
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    result = await (await _tools({}))["web_fetch"].execute({"url": "http://mixed.example.test/"})
    assert not result.success and "127.0.0.1" in result.error["message"]


class _Trickle(BaseHTTPRequestHandler):
    disconnected = threading.Event()
    stop = threading.Event()

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        try:
            while not _Trickle.stop.is_set():  # a byte at a time, each within the per-read timeout
                self.wfile.write(b"x")
                self.wfile.flush()
                _Trickle.stop.wait(0.05)
        except OSError:
            _Trickle.disconnected.set()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def trickle_server() -> Iterator[str]:
    _Trickle.disconnected = threading.Event()
    _Trickle.stop = threading.Event()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Trickle)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    _Trickle.stop.set()
    server.shutdown()
    server.server_close()


async def test_a_body_trickled_forever_is_cut_at_the_overall_deadline_and_the_download_stops(
        trickle_server: str) -> None:
    tools = await _tools({"allowed_hosts": ["127.0.0.1"], "timeout": 0.2, "max_redirects": 0})
    result = await tools["web_fetch"].execute({"url": trickle_server + "/slow"})
    assert not result.success and "timed out" in result.error["message"]
    # the worker thread gave up too (it used to keep reading from the server forever)
    assert _Trickle.disconnected.wait(5)
