"""The editor's side of `amplifier acp` for tests: the official SDK's client (`acp.spawn_agent_process`) driving the
installed command, with

- ``EditorClient``: records every `session/update`, answers `session/request_permission` from a script of
  choices (by option kind), serves `fs/read_text_file` / `fs/write_text_file` from in-memory buffers;
- ``SchemaCheck``: every message the agent sends is validated against the SDK's schema models (requests and
  notifications by method, responses by the method of the request they answer), and a method the client did not
  offer (`terminal/*`, `fs/*` when not offered) is a failure.

    async with acp_agent(e2e, "-P", "acp") as editor:
        await editor.conn.initialize(protocol_version=1)
        ...
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp import schema
from acp.connection import StreamDirection, StreamEvent

REQUEST_PARAMS = {
    "session/request_permission": schema.RequestPermissionRequest,
    "fs/read_text_file": schema.ReadTextFileRequest,
    "fs/write_text_file": schema.WriteTextFileRequest,
}
RESPONSE_RESULTS = {
    "initialize": schema.InitializeResponse,
    "session/new": schema.NewSessionResponse,
    "session/load": schema.LoadSessionResponse,
    "session/list": schema.ListSessionsResponse,
    "session/resume": schema.ResumeSessionResponse,
    "session/close": schema.CloseSessionResponse,
    "session/set_mode": schema.SetSessionModeResponse,
    "session/set_config_option": schema.SetSessionConfigOptionResponse,
    "session/prompt": schema.PromptResponse,
}


class SchemaCheck:
    """A stream observer: validates what the agent sends; ``problems`` lists what failed."""

    def __init__(self, offered_fs: set[str]) -> None:
        self.offered = {f"fs/{name}" for name in offered_fs}
        self.sent_methods: dict[Any, str] = {}  # our request id -> method
        self.problems: list[str] = []
        self.received: list[dict[str, Any]] = []

    def __call__(self, event: StreamEvent) -> None:
        message = event.message
        if event.direction is StreamDirection.OUTGOING:
            if "method" in message and "id" in message:
                self.sent_methods[message["id"]] = message["method"]
            return
        self.received.append(message)
        try:
            self._check(message)
        except Exception as error:  # a validation error: keep it for the test's final assertion
            self.problems.append(f"{type(error).__name__}: {error}\n{message}")

    def _check(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is not None:
            if "id" in message:
                schema.AgentRequest.model_validate(message)
                if method.startswith(("terminal/", "fs/")) and method not in self.offered:
                    raise AssertionError(f"the agent called {method}, which the client did not offer")
                REQUEST_PARAMS[method].model_validate(message["params"])
            else:
                schema.AgentNotification.model_validate(message)
                assert method == "session/update", f"unexpected notification {method}"
                schema.SessionNotification.model_validate(message["params"])
            return
        schema.AgentResponse.model_validate(message)
        answered = self.sent_methods.get(message.get("id"))
        if "result" in message and answered in RESPONSE_RESULTS and message["result"] is not None:
            RESPONSE_RESULTS[answered].model_validate(message["result"])


@dataclass
class EditorClient:
    """The client side's behaviour. ``choices``: option kinds to pick for permission requests, in order
    (`allow_once`, `allow_always`, `reject_once`, `reject_always`, or `cancelled`); an empty list rejects once."""

    choices: list[str] = field(default_factory=list)
    buffers: dict[str, str] = field(default_factory=dict)  # path -> text the editor holds (unsaved included)
    updates: list[tuple[str, Any]] = field(default_factory=list)  # (session id, update model)
    permission_requests: list[Any] = field(default_factory=list)
    writes: list[tuple[str, str]] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    permission_asked: asyncio.Event = field(default_factory=asyncio.Event)
    hold_permission: asyncio.Event | None = None  # set: answers wait until it is set
    arrived: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def request_permission(self, options: list[Any], session_id: str, tool_call: Any,
                                 **kwargs: Any) -> schema.RequestPermissionResponse:
        self.permission_requests.append((session_id, tool_call, options))
        self.permission_asked.set()
        if self.hold_permission is not None:
            await self.hold_permission.wait()
        wanted = self.choices.pop(0) if self.choices else "reject_once"
        if wanted == "cancelled":
            return schema.RequestPermissionResponse(outcome=schema.DeniedOutcome(outcome="cancelled"))
        option = next(option for option in options if option.kind == wanted)
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(outcome="selected", option_id=option.option_id))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))
        async with self.arrived:
            self.arrived.notify_all()

    async def wait_for(self, kind: str, condition: Any = None, timeout: float = 30) -> Any:
        """The first update of ``kind`` (meeting ``condition``) received so far or from now on (updates sent after
        an answer, such as the command list after session/new, may arrive after it)."""
        def found() -> Any:
            return next((update for update in self.of_kind(kind) if condition is None or condition(update)), None)

        async with self.arrived:
            await asyncio.wait_for(self.arrived.wait_for(lambda: found() is not None), timeout)
        return found()

    async def read_text_file(self, path: str, session_id: str, limit: int | None = None, line: int | None = None,
                             **kwargs: Any) -> schema.ReadTextFileResponse:
        self.reads.append(path)
        text = self.buffers.get(path)
        if text is None:
            text = Path(path).read_text(encoding="utf-8")
        return schema.ReadTextFileResponse(content=text)

    async def write_text_file(self, content: str, path: str, session_id: str,
                              **kwargs: Any) -> schema.WriteTextFileResponse:
        self.writes.append((path, content))
        self.buffers[path] = content
        Path(path).write_text(content, encoding="utf-8")  # as an editor saving the buffer
        return schema.WriteTextFileResponse()

    # -- reading what was sent ---------------------------------------------------------------------------
    def of_kind(self, kind: str, session_id: str | None = None) -> list[Any]:
        return [update for sid, update in self.updates
                if update.session_update == kind and (session_id is None or sid == session_id)]

    def agent_text(self, session_id: str | None = None) -> str:
        return "".join(update.content.text for update in self.of_kind("agent_message_chunk", session_id)
                       if getattr(update.content, "type", None) == "text")

    def clear(self) -> None:
        self.updates.clear()


@dataclass
class Editor:
    conn: Any
    client: EditorClient
    process: Any
    check: SchemaCheck
    stderr_path: Path

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    async def start(self, cwd: Path, *, fs: bool = False, **new_session: Any) -> str:
        """initialize (offering fs when asked) and session/new; returns the session id."""
        capabilities = schema.ClientCapabilities(
            fs=schema.FileSystemCapabilities(read_text_file=fs, write_text_file=fs))
        await self.conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=capabilities)
        response = await self.conn.new_session(cwd=str(cwd), mcp_servers=new_session.pop("mcp_servers", []),
                                               **new_session)
        return response.session_id

    async def say(self, session_id: str, text: str, *more: Any) -> Any:
        return await self.conn.prompt(session_id=session_id, prompt=[acp.text_block(text), *more])

    def assert_clean(self) -> None:
        assert not self.check.problems, "\n\n".join(self.check.problems)


@asynccontextmanager
async def acp_agent(command: list[str], *args: str, cwd: Path, env: dict[str, str],
                    client: EditorClient | None = None, fs: bool = False) -> AsyncIterator[Editor]:
    """Spawn `amplifier acp ARGS` (``command`` is how to run amplifier) with the SDK's client connected to it."""
    editor_client = client or EditorClient()
    check = SchemaCheck({"read_text_file", "write_text_file"} if fs else set())
    handle, name = tempfile.mkstemp(prefix="acp-stderr-", suffix=".log")
    try:
        async with acp.spawn_agent_process(
            editor_client, command[0], *command[1:], "acp", *args, cwd=cwd, env=env,
            transport_kwargs={"stderr": handle}, observers=[check], use_unstable_protocol=True,
        ) as (conn, process):
            editor = Editor(conn, editor_client, process, check, Path(name))
            try:
                yield editor
            except BaseException:  # what the agent logged helps more than the client's view of it
                print("--- amplifier acp stderr ---\n" + editor.stderr[-6000:])
                raise
            editor.assert_clean()
    finally:
        os.close(handle)
        os.unlink(name)
