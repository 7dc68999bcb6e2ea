"""A guarded HTTP GET: every hop (including redirects) is resolved, checked by the address policy and then
connected to the checked address itself, so a DNS answer cannot change between the check and the connect.
The whole fetch has one time budget; when it ends the connection is shut down, whatever it was waiting for."""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import SplitResult, urljoin, urlsplit

from .address_policy import AddressPolicy, resolve_host

_REDIRECTS = {301, 302, 303, 307, 308}


class FetchError(Exception):
    """The fetch failed in a way the model should read (bad URL, refused address, HTTP error...)."""


@dataclass
class FetchedPage:
    url: str
    status: int
    content_type: str
    charset: str | None
    body: bytes
    complete: bool  # False when the body was cut at the download limit

    def text(self) -> str:
        """The body decoded by its declared charset (UTF-8 when none); a charset Python has no text codec for
        is a FetchError, not a LookupError."""
        try:
            return self.body.decode(self.charset or "utf-8", errors="replace")
        except LookupError:
            raise FetchError(f"{self.url} declares charset {self.charset!r}, which is not a text encoding Python "
                             "knows, so its text cannot be decoded; try another address for the same "
                             "content") from None


class _Deadline:
    """Shuts the connection down when the fetch's budget ends. A read blocked on a server that trickles its
    headers or body returns at once and the server sees the close; per-read timeouts alone let a trickle go on
    forever in a thread nobody awaits any more."""

    def __init__(self, connection: http.client.HTTPConnection, remaining: float) -> None:
        self.expired = False
        self._connection = connection
        self._timer = threading.Timer(max(remaining, 0.0), self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        self.expired = True  # before looking at the socket: a connect finishing now is caught by check()
        sock = self._connection.sock
        if sock is not None:
            try:  # the plain socket's shutdown: an SSL socket's own would drop its state under the reader
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError:
                pass

    def check(self, url: str, budget: float) -> None:
        if self.expired:
            raise FetchError(f"fetching {url} timed out: the whole download took longer than {budget:g} seconds")

    def cancel(self) -> None:
        self._timer.cancel()


def _split(url: str) -> tuple[SplitResult, int]:
    """The URL's parts and port; a malformed URL is a FetchError saying what is wrong with it."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise FetchError(f"the URL {url!r} is malformed ({error}); an IPv6 address goes in brackets "
                         "(http://[::1]:8080/) and a port is a number from 1 to 65535") from None
    if parts.scheme not in ("http", "https"):
        raise FetchError(f"only http and https URLs can be fetched, not {parts.scheme or 'a relative URL'!r}")
    if not parts.hostname:
        raise FetchError(f"the URL {url!r} has no host")
    return parts, port or (443 if parts.scheme == "https" else 80)


def _pinned_connection(scheme: str, host: str, port: int, address: str, timeout: float) -> http.client.HTTPConnection:
    connection: http.client.HTTPConnection
    if scheme == "https":
        connection = http.client.HTTPSConnection(host, port, timeout=timeout, context=ssl.create_default_context())
    else:
        connection = http.client.HTTPConnection(host, port, timeout=timeout)

    def connect_to_checked_address(_address, connect_timeout, source_address=None):
        return socket.create_connection((address, port), connect_timeout, source_address)

    connection._create_connection = connect_to_checked_address  # type: ignore[attr-defined]
    return connection


def fetch(
    url: str,
    policy: AddressPolicy,
    *,
    timeout: float,
    max_download_bytes: int,
    max_redirects: int,
    user_agent: str,
    total_timeout: float | None = None,
) -> FetchedPage:
    """GET ``url`` following redirects; blocking (run it in a thread).

    ``timeout`` bounds each connect and read; ``total_timeout`` bounds the whole fetch, so a server that
    trickles its body a byte at a time is cut off and this thread ends (a caller's own timeout cannot stop it).
    """
    budget = total_timeout if total_timeout is not None else timeout * (max_redirects + 1)
    deadline = time.monotonic() + budget
    current = url
    for _hop in range(max_redirects + 1):
        parts, port = _split(current)
        try:
            addresses = resolve_host(parts.hostname, port)
        except UnicodeError as error:  # a label over 63 characters, an empty label...
            raise FetchError(f"the URL {current!r} has a host name that is not valid ({error})") from None
        except (OSError, ValueError) as error:
            raise FetchError(f"could not resolve {parts.hostname}: {error}") from error
        policy.check(parts.hostname, addresses)
        connection = _pinned_connection(parts.scheme, parts.hostname, port, str(addresses[0]), timeout)
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        response: http.client.HTTPResponse | None = None
        watchdog = _Deadline(connection, deadline - time.monotonic())
        try:
            connection.request("GET", target, headers={"User-Agent": user_agent, "Accept": "*/*"})
            watchdog.check(current, budget)
            response = connection.getresponse()
            watchdog.check(current, budget)
            if response.status in _REDIRECTS and response.getheader("Location"):
                current = _redirect_target(current, response.getheader("Location"))
                response.read(65536)
                continue
            body = _read_body(connection, response, max_download_bytes + 1, deadline, timeout, budget, current)
            watchdog.check(current, budget)  # a body cut by the shutdown ends like a complete one
            content_type = response.getheader("Content-Type", "application/octet-stream")
            media_type = content_type.split(";")[0].strip().lower()
            charset = response.headers.get_content_charset()
            return FetchedPage(
                url=current,
                status=response.status,
                content_type=media_type,
                charset=charset,
                body=body[:max_download_bytes],
                complete=len(body) <= max_download_bytes,
            )
        except (OSError, http.client.HTTPException) as error:
            watchdog.check(current, budget)
            raise FetchError(f"fetching {current} failed: {error}") from error
        finally:
            watchdog.cancel()
            if response is not None:
                response.close()  # the socket stays open while the response holds it, even after close()
            connection.close()
    raise FetchError(f"too many redirects (more than {max_redirects}) starting at {url}")


def _redirect_target(current: str, location: str) -> str:
    try:
        return urljoin(current, location)
    except ValueError as error:
        raise FetchError(f"{current} redirected to the malformed URL {location!r} ({error})") from None


def _read_body(connection: http.client.HTTPConnection, response: http.client.HTTPResponse, limit: int,
               deadline: float, timeout: float, budget: float, url: str) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise FetchError(f"fetching {url} timed out: the whole download took longer than {budget:g} seconds")
        if connection.sock is not None:
            connection.sock.settimeout(min(timeout, remaining))
        chunk = response.read1(min(65536, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
