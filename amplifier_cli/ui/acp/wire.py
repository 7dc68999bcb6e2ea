"""The ACP connection's bytes: newline-delimited JSON-RPC on stdin and on the reserved stdout.

It is a message transport as the SDK's Connection takes one (``send``/``receive``/``close``), with what the
SDK's own stdio transport does not do: a line that is not JSON is answered with -32700 and a line that is no
JSON-RPC message with -32600 (the SDK only logs them, and the editor would wait forever); messages can be
read before the SDK has been imported (half a second of pydantic models), so `initialize` is answered at
once and the rest kept for the SDK (``read_ahead``, ``keep``); and a handler can have work run right after
its answer has left (``after_reply``)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections import deque
from collections.abc import Callable, Coroutine
from contextvars import ContextVar
from typing import Any

logger = logging.getLogger(__name__)
MAX_LINE_BYTES = 64 * 1024 * 1024  # a prompt with images is a few MB of base64
PARSE_ERROR, INVALID_REQUEST = -32700, -32600

AfterReply = Callable[[], Coroutine[Any, Any, None]]
# set by a request's handler (wire.after_reply); the SDK answers in the handler's own task, so the answer's send sees it
_AFTER_REPLY: ContextVar[list[AfterReply] | None] = ContextVar("acp_after_reply", default=None)


class _Writer(asyncio.Protocol):
    """Flow control for the write pipe: ``drain`` waits while the editor is not reading."""

    def __init__(self) -> None:
        self._paused = False
        self._resumed: asyncio.Future[None] | None = None

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        if self._resumed is not None and not self._resumed.done():
            self._resumed.set_result(None)

    async def drain(self) -> None:
        while self._paused:
            self._resumed = asyncio.get_running_loop().create_future()
            await self._resumed


def error_response(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _invalid(message: Any) -> str | None:
    """Why ``message`` is no JSON-RPC 2.0 request, notification or response (None when it is one)."""
    if not isinstance(message, dict):
        return "a JSON-RPC message is an object (batches are not used by ACP)"
    if message.get("jsonrpc") != "2.0":
        return 'the message lacks "jsonrpc": "2.0"'
    if "method" in message:
        if not isinstance(message["method"], str):
            return '"method" must be a string'
        if "params" in message and message["params"] is not None and not isinstance(message["params"], dict | list):
            return '"params" must be an object'
        return None
    if "id" in message and ("result" in message or "error" in message):
        return None
    return 'the message has neither a "method" nor a "result" or "error" for an "id"'


class _FileWriter:
    """Stdout that is a regular file, not a pipe (asyncio's pipe transport refuses files): plain writes."""

    def __init__(self, file: Any) -> None:
        self._file = file
        self._closed = False

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[self._file.write(view):]

    def is_closing(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True
        self._file.close()


class StdioWire:
    """One JSON-RPC connection over stdin (``reader``) and the protocol's file descriptor."""

    def __init__(self, reader: asyncio.StreamReader, transport: Any, writer: _Writer) -> None:
        self._reader = reader
        self._transport = transport
        self._writer = writer
        self._lock = asyncio.Lock()
        self._backlog: deque[dict[str, Any]] = deque()  # read before the SDK was there to take them
        self._pending_read: asyncio.Future[dict[str, Any] | None] | None = None
        self._callbacks: set[asyncio.Task[Any]] = set()

    @classmethod
    async def open(cls, out_fd: int, in_fd: int = 0) -> StdioWire:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                     os.fdopen(in_fd, "rb", buffering=0, closefd=False))
        out = os.fdopen(out_fd, "wb", buffering=0)
        try:
            transport, writer = await loop.connect_write_pipe(_Writer, out)
        except ValueError:  # stdout redirected to a file
            return cls(reader, _FileWriter(out), _Writer())
        return cls(reader, transport, writer)

    def after_reply(self, callback: AfterReply) -> None:
        """Run ``callback`` once the answer to the request being handled has been sent (e.g. updates about a
        session the editor must know the id of first). Call it from the request's handler."""
        pending = _AFTER_REPLY.get()
        if pending is None:
            pending = []
            _AFTER_REPLY.set(pending)
        pending.append(callback)

    def keep(self, message: dict[str, Any]) -> None:
        """Hand back a message read before the SDK was ready: ``receive`` returns it first."""
        self._backlog.append(message)

    def read_ahead(self) -> asyncio.Future[dict[str, Any] | None]:
        """Start reading the next message; ``receive`` returns it in turn if nobody else takes it."""
        if self._pending_read is None:
            self._pending_read = asyncio.ensure_future(self._read_message())
        return self._pending_read

    def take_read_ahead(self) -> None:
        """The caller consumed the read-ahead's message itself."""
        self._pending_read = None

    async def send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        async with self._lock:  # one whole line at a time
            if self._transport.is_closing():
                raise ConnectionError("the editor closed the connection")
            self._transport.write(line)
            await self._writer.drain()
        if "id" in message and "result" in message and "method" not in message:
            callbacks = _AFTER_REPLY.get()
            if callbacks:
                _AFTER_REPLY.set(None)
                for callback in callbacks:
                    task = asyncio.get_running_loop().create_task(callback())
                    self._callbacks.add(task)
                    task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._callbacks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("after-reply work failed", exc_info=task.exception())

    async def receive(self) -> dict[str, Any] | None:
        """The next message for the SDK; None at the end of stdin. Bad lines are answered here and skipped."""
        if self._backlog:
            return self._backlog.popleft()
        if self._pending_read is not None:
            pending, self._pending_read = self._pending_read, None
            return await pending
        return await self._read_message()

    async def _read_message(self) -> dict[str, Any] | None:
        while True:
            try:
                line = await self._reader.readline()
            except ValueError:  # longer than MAX_LINE_BYTES: drop it and answer
                await self._skip_rest_of_line()
                await self.send(error_response(None, PARSE_ERROR, "Parse error",
                                               {"details": f"a line longer than {MAX_LINE_BYTES} bytes"}))
                continue
            if not line:
                return None
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError as error:  # UnicodeDecodeError included
                await self.send(error_response(None, PARSE_ERROR, "Parse error", {"details": str(error)}))
                continue
            why = _invalid(message)
            if why is not None:
                request_id = message.get("id") if isinstance(message, dict) else None
                await self.send(error_response(request_id if isinstance(request_id, int | str) else None,
                                               INVALID_REQUEST, "Invalid request", {"details": why}))
                continue
            return message

    async def _skip_rest_of_line(self) -> None:
        while True:
            try:
                await self._reader.readuntil(b"\n")
                return
            except asyncio.LimitOverrunError as overrun:
                await self._reader.readexactly(overrun.consumed)
            except asyncio.IncompleteReadError:
                return

    async def close(self) -> None:
        if not self._transport.is_closing():
            self._transport.close()
