"""The proxy a sandboxed command's network goes through: HTTP CONNECT tunnels and plain HTTP requests, each to a
host that ``decide`` allows.

It listens on a unix socket (``relay.py`` brings each connection from inside the command's network namespace)
and runs in the app's event loop. ``decide(host, port)`` answers per connection: the allow list, or a person
asked in the chat. A refused connection gets ``403`` with a body naming the host, and the host is kept in
``refused`` so the tool result can name it too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

Decide = Callable[[str, int], Awaitable[bool]]
_HEAD_LIMIT = 64 * 1024
_CONNECT_TIMEOUT = 30.0


def host_of(authority: str, default_port: int) -> tuple[str, int] | None:
    """(host, port) of ``host:port``, ``[v6]:port`` or a bare host; None when it is not one."""
    authority = authority.strip()
    if authority.startswith("["):
        host, _, rest = authority[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port_text = authority.rpartition(":") if authority.count(":") == 1 else (authority, "", "")
    if not host or any(char in host for char in "/ @\\"):
        return None
    try:
        port = int(port_text) if port_text else default_port
    except ValueError:
        return None
    return (host.lower().rstrip("."), port) if 0 < port < 65536 else None


class NetworkProxy:
    """One proxy per tool (all of its commands); ``socket_path`` is what the launcher's spec names."""

    def __init__(self, decide: Decide) -> None:
        self.decide = decide
        self.refused: list[str] = []  # hosts refused since the caller last took them
        self._directory = ""
        self.socket_path = ""  # made by the first start()
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        if self._server is None:
            self._directory = tempfile.mkdtemp(prefix="amplifier-net-")  # private (0700)
            self.socket_path = os.path.join(self._directory, "proxy.sock")
            self._server = await asyncio.start_unix_server(self._client, path=self.socket_path, limit=_HEAD_LIMIT)

    def take_refused(self) -> list[str]:
        refused, self.refused = list(dict.fromkeys(self.refused)), []
        return refused

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._tasks):
            task.cancel()
        if self._directory:
            with contextlib.suppress(OSError):
                os.unlink(self.socket_path)
            with contextlib.suppress(OSError):
                os.rmdir(self._directory)
            self._directory = ""

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._handle(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        request_line, _, rest = head.partition(b"\r\n")
        parts = request_line.decode("latin-1").split()
        if len(parts) != 3:
            return await _reply(writer, 400, "not an HTTP proxy request")
        method, target, version = parts
        if method.upper() == "CONNECT":
            where = host_of(target, 443)
            forward = b""
        else:
            split = urlsplit(target)
            if split.scheme != "http" or not split.netloc:
                return await _reply(writer, 400, "only CONNECT and absolute http:// requests go through this proxy")
            where = host_of(split.netloc, 80)
            path = (split.path or "/") + (f"?{split.query}" if split.query else "")
            headers = [line for line in rest.split(b"\r\n") if line and not line.lower().startswith(
                (b"proxy-connection:", b"connection:", b"keep-alive:"))]
            forward = b"\r\n".join([f"{method} {path} {version}".encode("latin-1"), *headers,
                                     b"Connection: close", b"", b""])  # one request: the next may name another host
        if where is None:
            return await _reply(writer, 400, f"cannot read the host of {target!r}")
        host, port = where
        if not await self.decide(host, port):
            self.refused.append(host)
            return await _reply(writer, 403, f"the sandbox refused {host}: it is not on sandbox.network.allow "
                                             "and was not allowed when asked")
        try:
            upstream_reader, upstream_writer = await asyncio.wait_for(asyncio.open_connection(host, port),
                                                                      _CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as error:
            return await _reply(writer, 502, f"cannot reach {host}:{port}: {error}")
        if forward:
            upstream_writer.write(forward)
        else:
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))


async def _pipe(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
    try:
        while data := await source.read(65536):
            target.write(data)
            await target.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            if target.can_write_eof():
                target.write_eof()


async def _reply(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[status]
    body = (text + "\n").encode()
    writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
                 "Connection: close\r\n\r\n".encode() + body)
    with contextlib.suppress(OSError):
        await writer.drain()
