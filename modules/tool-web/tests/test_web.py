"""tool-web against a real local HTTP server: fetching, HTML to text, paging, and the address policy
(refused address classes, names that resolve inside the network, redirects into the network)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from amplifier_module_tool_web import mount
from amplifier_module_tool_web.address_policy import AddressPolicy, address_class

from amplifier_core import ModuleCoordinator
from amplifier_core.module_config import ModuleConfigError

PAGE = b"""<!doctype html><html><head><title>Test page</title><style>p{color:red}</style>
<script>var secret = 1;</script></head><body><h1>Heading</h1><p>First   paragraph.</p>
<ul><li>one</li><li>two</li></ul></body></html>"""


class _Handler(BaseHTTPRequestHandler):
    routes: dict[str, tuple[int, dict[str, str], bytes]] = {}

    def do_GET(self) -> None:
        status, headers, body = self.routes.get(self.path, (404, {"Content-Type": "text/plain"}, b"missing"))
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def web_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    _Handler.routes = {
        "/page": (200, {"Content-Type": "text/html; charset=utf-8"}, PAGE),
        "/long": (200, {"Content-Type": "text/plain"}, b"x" * 250),
        "/image": (200, {"Content-Type": "image/png"}, b"\x89PNG\r\n"),
        "/gone": (410, {"Content-Type": "text/plain"}, b"gone"),
        "/to-page": (302, {"Location": "/page"}, b""),
        "/to-private": (302, {"Location": "http://10.1.2.3/admin"}, b""),
        "/to-metadata-name": (302, {"Location": "http://metadata.internal.test/latest"}, b""),
        "/loop": (302, {"Location": "/loop"}, b""),
        "/search?format=json&q=amplifier+cli": (
            200, {"Content-Type": "application/json"},
            json.dumps({"results": [{"title": "A", "url": "https://a.example", "content": "snippet a"}]}).encode(),
        ),
    }
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield base
    server.shutdown()
    server.server_close()


class _Session:
    session_id = "s"
    parent_id = None
    config: dict[str, Any] = {}


async def _tools(config: dict[str, Any]) -> dict[str, Any]:
    coordinator = ModuleCoordinator(_Session())
    await mount(coordinator, config)
    return coordinator.get("tools")


@pytest.fixture
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Map test host names to chosen addresses; other names resolve normally."""
    table: dict[str, str] = {}
    real = socket.getaddrinfo

    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host in table:
            family = socket.AF_INET6 if ":" in table[host] else socket.AF_INET
            return [(family, socket.SOCK_STREAM, 6, "", (table[host], port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return table


async def test_fetch_converts_html_to_readable_text_without_scripts(web_server: str) -> None:
    tools = await _tools({"allowed_hosts": ["127.0.0.1"]})
    result = await tools["web_fetch"].execute({"url": f"{web_server}/page"})
    assert result.success, result.error
    assert result.output["title"] == "Test page"
    content = result.output["content"]
    assert "Heading" in content and "First paragraph." in content and "- one" in content
    assert "secret" not in content and "color:red" not in content


async def test_long_text_is_paged_with_an_offset_hint(web_server: str) -> None:
    tools = await _tools({"allowed_hosts": ["127.0.0.1"]})
    first = await tools["web_fetch"].execute({"url": f"{web_server}/long", "max_bytes": 100})
    assert first.output["truncated"] and "offset=100" in first.output["content"]
    last = await tools["web_fetch"].execute({"url": f"{web_server}/long", "max_bytes": 100, "offset": 200})
    assert last.output["content"] == "x" * 50 and not last.output["truncated"]


async def test_redirects_are_followed_within_allowed_addresses(web_server: str) -> None:
    tools = await _tools({"allowed_hosts": ["127.0.0.1"]})
    result = await tools["web_fetch"].execute({"url": f"{web_server}/to-page"})
    assert result.success and result.output["url"].endswith("/page")


async def test_redirect_to_a_private_address_is_refused(web_server: str) -> None:
    tools = await _tools({"allowed_hosts": ["127.0.0.1"]})
    result = await tools["web_fetch"].execute({"url": f"{web_server}/to-private"})
    assert not result.success
    assert "10.1.2.3" in result.error["message"] and "private" in result.error["message"]


async def test_redirect_to_a_name_resolving_to_metadata_is_refused(web_server: str, fake_dns) -> None:
    fake_dns["metadata.internal.test"] = "169.254.169.254"
    tools = await _tools({"allowed_hosts": ["127.0.0.1"]})
    result = await tools["web_fetch"].execute({"url": f"{web_server}/to-metadata-name"})
    assert not result.success and "cloud metadata" in result.error["message"]


async def test_loopback_is_refused_unless_allowed(web_server: str) -> None:
    tools = await _tools({})
    result = await tools["web_fetch"].execute({"url": f"{web_server}/page"})
    assert not result.success and "loopback" in result.error["message"]
    assert "allowed_hosts" in result.error["message"]


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1/", "loopback"),
        ("http://[::1]/", "loopback"),
        ("http://10.0.0.1/", "private"),
        ("http://172.20.1.1/", "private"),
        ("http://192.168.1.1/", "private"),
        ("http://[fc00::1]/", "private"),
        ("http://169.254.1.1/", "link-local"),
        ("http://[fe80::1]/", "link-local"),
        ("http://169.254.169.254/latest/meta-data", "cloud metadata"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://224.0.0.1/", "multicast"),
        ("http://100.64.0.1/", "reserved"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),
        ("http://2130706433/", "loopback"),  # decimal form of 127.0.0.1
    ],
)
async def test_every_non_public_address_class_is_refused(url: str, reason: str) -> None:
    tools = await _tools({})
    result = await tools["web_fetch"].execute({"url": url})
    assert not result.success
    assert f"a {reason} address" in result.error["message"]


@pytest.mark.parametrize("address", ["10.9.8.7", "192.168.0.10", "127.0.0.2", "fd12::5"])
async def test_public_looking_names_that_resolve_inside_the_network_are_refused(address: str, fake_dns) -> None:
    fake_dns["innocent.example.test"] = address
    tools = await _tools({})
    result = await tools["web_fetch"].execute({"url": "http://innocent.example.test/"})
    assert not result.success and address in result.error["message"]


def test_public_addresses_are_allowed_and_networks_can_be_allowed() -> None:
    import ipaddress

    assert address_class(ipaddress.ip_address("93.184.216.34")) is None
    policy = AddressPolicy.from_config(["10.0.0.0/8"])
    policy.check("anything", [ipaddress.ip_address("10.2.3.4")])  # no exception


async def test_other_schemes_non_text_http_errors_and_redirect_loops_are_clear_errors(web_server: str) -> None:
    fetch_tool = (await _tools({"allowed_hosts": ["127.0.0.1"], "max_redirects": 2}))["web_fetch"]
    assert "only http and https" in (await fetch_tool.execute({"url": "file:///etc/passwd"})).error["message"]
    assert "not text" in (await fetch_tool.execute({"url": f"{web_server}/image"})).error["message"]
    assert "HTTP 410" in (await fetch_tool.execute({"url": f"{web_server}/gone"})).error["message"]
    assert "too many redirects" in (await fetch_tool.execute({"url": f"{web_server}/loop"})).error["message"]
    assert "needs a 'url'" in (await fetch_tool.execute({})).error["message"]


async def test_web_search_is_not_offered_without_a_backend() -> None:
    assert set(await _tools({})) == {"web_fetch"}


async def test_web_search_uses_the_configured_backend(web_server: str) -> None:
    tools = await _tools({"allowed_hosts": ["127.0.0.1"], "search": {"type": "searxng", "url": web_server}})
    result = await tools["web_search"].execute({"query": "amplifier cli"})
    assert result.success
    assert result.output["results"] == [{"title": "A", "url": "https://a.example", "snippet": "snippet a"}]


async def test_unknown_config_key_is_reported() -> None:
    with pytest.raises(ModuleConfigError, match="did you mean 'allowed_hosts'"):
        await _tools({"allowed_host": ["x"]})
