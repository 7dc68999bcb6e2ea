"""One MCP server connection, held open by a background task.

The SDK's transports are anyio context managers that must be entered and left by the same task, so each
server gets a runner task that opens the transport and the ``ClientSession``, reports ready, and waits to be
told to stop. Tool calls from other tasks use the session directly; a call cancelled by the user (Ctrl-C)
makes the SDK send ``notifications/cancelled``. A connection that closes under a call is marked crashed and
is opened again on the next call.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from .env_refs import UnsetVariable, expand
from .oauth import LoginSettings, OAuthStore, ServerLogin, StoredCredentials
from .server_specs import ServerDefinition

logger = logging.getLogger(__name__)

State = Literal["starting", "connected", "failed", "crashed", "stopped"]
CLIENT_NAME = "amplifier"


class ServerUnavailable(Exception):
    """The server is not connected (it failed to start, or could not be restarted)."""


@dataclass
class ConnectionSettings:
    startup_timeout: float
    request_timeout: float | None
    log_dir: Path | None
    working_dir: Path | None
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    guard_processes: bool = True
    verbose: bool = False  # stdio servers' stderr to the terminal instead of the log file
    warn: Callable[[str], None] = field(default=lambda message: logger.warning("%s", message))
    oauth_store: OAuthStore | None = None  # the app's key store (capability mcp.oauth_store); None: kept in memory
    login: LoginSettings = field(default_factory=lambda: LoginSettings(interactive=False, show=logger.info))
    # asks the person a server's elicitation form: (server, message, JSON schema) -> answers, or None (declined);
    # None: nobody can answer, every elicitation is declined
    elicit: Callable[[str, str, dict[str, Any]], Awaitable[dict[str, Any] | None]] | None = None


class MemoryOAuthStore:
    """Tokens for this process only, when the app gives no key store (a module used on its own)."""

    def __init__(self) -> None:
        self.records: dict[tuple[str, str], dict[str, Any]] = {}

    def load(self, server: str, url: str) -> dict[str, Any] | None:
        return self.records.get((server, url))

    def save(self, server: str, url: str, record: dict[str, Any]) -> None:
        self.records[(server, url)] = dict(record)

    def forget(self, server: str, url: str | None = None) -> int:
        gone = [key for key in self.records if key[0] == server and url in (None, key[1])]
        for key in gone:
            del self.records[key]
        return len(gone)


def leaf_error(error: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups, which anyio task groups raise."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def describe_error(error: BaseException) -> str:
    error = leaf_error(error)
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return text or type(error).__name__


class ServerConnection:
    def __init__(self, definition: ServerDefinition, settings: ConnectionSettings) -> None:
        self.name = definition.name
        self.definition = definition
        self.settings = settings
        self.state: State = "stopped"
        self.error: str | None = None
        self.transport_used: str | None = None
        self.tools: list[Any] = []  # mcp_types.Tool
        self.prompts: list[Any] = []  # mcp_types.Prompt
        self.has_resources = False
        self.resources: list[Any] = []  # mcp_types.Resource, listed at connect (for @server:uri completion)
        self.resource_templates: list[Any] = []  # mcp_types.ResourceTemplate
        self._session: Any = None
        self._runner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()
        self._errlog: IO[str] | None = None
        self._login: ServerLogin | None = None
        self.changed: set[str] = set()  # lists the server said changed (tools, prompts, resources), re-read lazily

    # -- lifecycle ---------------------------------------------------------------------------------------
    @property
    def log_path(self) -> Path | None:
        if self.settings.verbose or self.settings.log_dir is None:
            return None  # verbose: stderr goes to the terminal
        return self.settings.log_dir / f"{self.name}.log"

    async def connect(self) -> bool:
        """Start (or restart) the server; False with ``self.error`` set when it does not come up in time."""
        async with self._lock:
            if self.state == "connected":
                return True
            await self._stop_runner()
            self.state, self.error = "starting", None
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            ready.add_done_callback(lambda done: done.cancelled() or done.exception())  # read even if abandoned
            self._stop = asyncio.Event()
            self._runner = asyncio.create_task(self._run(ready), name=f"mcp-server-{self.name}")
            timeout = self.definition.spec.startup_timeout or self.settings.startup_timeout
            try:
                await self._wait_ready(ready, timeout)
            except TimeoutError:
                await self._stop_runner()
                return self._failed(f"did not answer within {timeout:g}s")
            except asyncio.CancelledError:
                await self._stop_runner()
                self.state = "stopped"
                raise
            except Exception as error:  # the runner has already unwound
                await self._stop_runner()
                return self._failed(self._reason(error))
            self.state = "connected"
            return True

    async def _wait_ready(self, ready: asyncio.Future[None], timeout: float) -> None:
        """The startup timeout counts while the server works, not while a person logs in in the browser
        (the login has its own limit)."""
        while True:
            try:
                await asyncio.wait_for(asyncio.shield(ready), timeout)
                return
            except TimeoutError:
                if self._login is None or not self._login.waiting_for_person:
                    raise

    def auth_state(self) -> str | None:
        """``logged in`` (an OAuth token is kept for it), ``login needed`` (it asked for a login nobody could
        give), else None: no OAuth, or none needed so far."""
        spec = self.definition.spec
        if spec.oauth_options is None:
            return None
        if self._login is not None and self._login.login_refused:
            return "login needed"
        store = self.settings.oauth_store
        record = store.load(self.name, self._login.url if self._login else spec.url or "") if store else None
        return "logged in" if record and record.get("tokens") else None

    async def close(self) -> None:
        async with self._lock:
            await self._stop_runner()
            self.state = "stopped"

    def _failed(self, reason: str) -> bool:
        self.state, self.error = "failed", reason
        return False

    def _reason(self, error: BaseException) -> str:
        if self._login is not None and self._login.failure:
            return self._login.failure
        reason = describe_error(error)
        last = self._last_log_line()
        if last and last not in reason:
            reason = f"{reason} (stderr: {last})"
        return reason

    def _last_log_line(self) -> str | None:
        path = self.log_path
        if path is None or self.definition.spec.transport != "stdio":
            return None
        try:
            with path.open("rb") as log:
                log.seek(max(path.stat().st_size - 4000, 0))
                lines = [line.strip() for line in log.read().decode("utf-8", "replace").splitlines() if line.strip()]
        except OSError:
            return None
        return lines[-1][:200] if lines else None

    async def _stop_runner(self) -> None:
        runner, self._runner = self._runner, None
        self._session = None
        if runner is None:
            return
        self._stop.set()
        runner.cancel()  # the transports shut their server down under cancellation too (bounded, shielded)
        with contextlib.suppress(BaseException):
            await runner
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None

    async def _run(self, ready: asyncio.Future[None]) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                session = await self._open(stack)
                await self._discover(session)
                self._session = session
                ready.set_result(None)
                await self._stop.wait()
        except asyncio.CancelledError:
            if not ready.done():
                ready.set_exception(ServerUnavailable("startup was cancelled"))
            raise
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error if isinstance(error, Exception) else ServerUnavailable(str(error)))
            elif self.state == "connected":
                self._mark_crashed(describe_error(error))
        finally:
            self._session = None

    # -- transports --------------------------------------------------------------------------------------
    async def _open(self, outer: contextlib.AsyncExitStack) -> Any:
        from mcp import ClientSession, Implementation

        spec = self.definition.spec
        kinds = ["http", "sse"] if spec.transport == "auto" else [spec.transport]
        for index, kind in enumerate(kinds):
            attempt = contextlib.AsyncExitStack()
            await attempt.__aenter__()
            try:
                read, write = await attempt.enter_async_context(self._transport(kind))
                session = await attempt.enter_async_context(
                    ClientSession(read, write, read_timeout_seconds=self.settings.request_timeout,
                                  client_info=Implementation(name=CLIENT_NAME, version="0.1.0"),
                                  message_handler=self._on_message, elicitation_callback=self._elicit)
                )
                await session.initialize()
            except BaseException as error:
                with contextlib.suppress(BaseException):
                    await attempt.aclose()
                refused = self._login is not None and self._login.login_refused  # SSE would ask the same
                if not isinstance(error, Exception) or index == len(kinds) - 1 or refused:
                    raise
                continue
            outer.push_async_callback(attempt.aclose)
            self.transport_used = kind
            return session
        raise ServerUnavailable("no transport")  # unreachable: the loop returns or raises

    def _transport(self, kind: str) -> contextlib.AbstractAsyncContextManager[Any]:
        spec = self.definition.spec
        environ = self.settings.environ
        try:
            if kind == "stdio":
                return self._stdio_transport(environ)
            url = expand(spec.url, environ)
            headers = expand(spec.headers, environ)
        except UnsetVariable as error:
            raise ServerUnavailable(str(error)) from None
        auth = self._oauth(url)
        if kind == "sse":
            from mcp.client.sse import sse_client

            return sse_client(url, headers=headers or None, auth=auth)
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        client = httpx2.AsyncClient(headers=headers or None, timeout=httpx2.Timeout(30.0, read=300.0), auth=auth)
        return _owning(client, streamable_http_client(url, http_client=client))

    def _oauth(self, url: str) -> Any:
        """The SDK's OAuth provider for this server (it acts only on a 401), or None where none applies."""
        options = self.definition.spec.oauth_options
        if options is None:
            self._login = None
            return None
        if self.settings.oauth_store is None:
            self.settings.oauth_store = MemoryOAuthStore()
        configured = None
        if options.client_id:
            secret = expand(options.client_secret, self.settings.environ) if options.client_secret else None
            configured = {"client_id": expand(options.client_id, self.settings.environ), "client_secret": secret,
                          "token_endpoint_auth_method": "client_secret_post" if secret else "none"}
        credentials = StoredCredentials(self.settings.oauth_store, self.name, url, configured)
        self._login = ServerLogin(self.name, url, credentials, self.settings.login, scope=options.scope,
                                  callback_port=options.callback_port)
        if configured is not None:
            configured["redirect_uris"] = [self._login.redirect_uri]
        return self._login.auth()

    def _stdio_transport(self, environ: Mapping[str, str]) -> contextlib.AbstractAsyncContextManager[Any]:
        from mcp import StdioServerParameters, stdio_client

        spec = self.definition.spec
        command = expand(spec.command, environ)
        args = expand(spec.args, environ)
        env = expand(spec.env, environ)
        cwd = expand(spec.cwd, environ) if spec.cwd else None
        base = Path(self.settings.working_dir) if self.settings.working_dir else None
        if cwd and base is not None and not os.path.isabs(cwd):
            cwd = str(base / cwd)
        search_path = env.get("PATH") or environ.get("PATH")
        found = shutil.which(command, path=search_path)
        if found is None:
            raise ServerUnavailable(f"command not found: {command}")
        argv = [found, *args]
        if self.settings.guard_processes and sys.platform.startswith("linux"):
            # run as a file, isolated and without site: `-m` would import this package first (the kernel, pydantic:
            # about 0.5 s before each server starts); the guard needs only the standard library
            guard = str(Path(__file__).with_name("process_guard.py"))
            argv = [sys.executable, "-I", "-S", guard, str(os.getpid()), *argv]
        parameters = StdioServerParameters(command=argv[0], args=argv[1:], env=env or None,
                                           cwd=cwd or (str(base) if base else None))
        return stdio_client(parameters, errlog=self._open_errlog())

    def _open_errlog(self) -> IO[str]:
        if self._errlog is not None:
            self._errlog.close()
        path = self.log_path
        if self.settings.verbose:  # a duplicate of our stderr, so closing it later leaves ours open
            self._errlog = os.fdopen(os.dup(sys.stderr.fileno()), "w", encoding="utf-8", errors="replace")
        elif path is None:
            self._errlog = open(os.devnull, "w")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._errlog = path.open("a", encoding="utf-8")
        return self._errlog

    # -- what the server offers --------------------------------------------------------------------------
    async def _discover(self, session: Any) -> None:
        capabilities = session.server_capabilities
        self.tools = await all_pages(session.list_tools, "tools") if capabilities and capabilities.tools else []
        self.prompts = (
            await all_pages(session.list_prompts, "prompts") if capabilities and capabilities.prompts else []
        )
        self.has_resources = bool(capabilities and capabilities.resources)
        if self.has_resources:
            await self._list_resources(session)

    async def _list_resources(self, session: Any) -> None:
        """What `@server:uri` completes to; a server whose listing fails still serves its tools."""
        try:
            self.resources = await all_pages(session.list_resources, "resources")
            self.resource_templates = await all_pages(session.list_resource_templates, "resource_templates")
        except Exception as error:
            logger.debug("MCP server %s: listing resources failed: %s", self.name, describe_error(error))

    async def _on_message(self, message: Any) -> None:
        """A server's notification that a list changed: re-read it before the next model request."""
        import mcp_types

        kinds = {mcp_types.ToolListChangedNotification: "tools", mcp_types.PromptListChangedNotification: "prompts",
                 mcp_types.ResourceListChangedNotification: "resources"}
        notification = getattr(message, "root", message)
        for kind, name in kinds.items():
            if isinstance(notification, kind):
                self.changed.add(name)

    async def refresh_changed(self) -> set[str]:
        """Re-list what the server said changed; returns those kinds (empty when nothing changed)."""
        changed, self.changed = self.changed, set()
        if not changed or self.state != "connected" or self._session is None:
            return set()
        session = self._session
        try:
            if "tools" in changed:
                self.tools = await all_pages(session.list_tools, "tools")
            if "prompts" in changed:
                self.prompts = await all_pages(session.list_prompts, "prompts")
            if "resources" in changed:
                await self._list_resources(session)
        except Exception as error:
            self.settings.warn(f"MCP server '{self.name}' said its {', '.join(sorted(changed))} changed, but "
                               f"listing them failed: {describe_error(error)}")
            return set()
        return changed

    async def _elicit(self, context: Any, params: Any) -> Any:
        """The server asks the user something: a form goes to the app's form asker; with nobody to ask (or a
        URL elicitation, which this client does not open), the answer is a decline."""
        from mcp_types import ElicitResult

        schema = getattr(params, "requested_schema", None)
        if self.settings.elicit is None or getattr(params, "mode", "form") != "form" or schema is None:
            return ElicitResult(action="decline")
        try:
            answers = await self.settings.elicit(self.name, params.message, dict(schema))
        except Exception as error:  # the asker failed: the server gets a cancel, the session goes on
            logger.debug("MCP server %s: elicitation failed: %s", self.name, describe_error(error))
            return ElicitResult(action="cancel")
        if answers is None:
            return ElicitResult(action="decline")
        return ElicitResult(action="accept", content=answers)

    async def session(self) -> Any:
        """The live session, reconnecting first when the server crashed since the last call."""
        if self.state in ("crashed",) or (self.state == "connected" and self._runner and self._runner.done()):
            if not await self.connect():
                raise ServerUnavailable(f"MCP server '{self.name}' could not be restarted: {self.error}")
        if self.state != "connected" or self._session is None:
            raise ServerUnavailable(f"MCP server '{self.name}' is not connected: {self.error or self.state}")
        return self._session

    async def request(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """Call a ClientSession method; a closed connection marks the server crashed (restarted next call)."""
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED

        session = await self.session()
        try:
            return await getattr(session, method)(*args, **kwargs)
        except MCPError as error:
            if error.code != CONNECTION_CLOSED:
                raise  # the server answered with an error: the connection is fine
            reason = self._reason(error)
            what = f"closed the connection ({reason})"
        except Exception as error:  # the transport failed (an HTTP server gone, a broken stream)
            reason = describe_error(error)
            what = f"failed ({reason})"
        self._mark_crashed(reason)
        raise ServerUnavailable(f"MCP server '{self.name}' {what}; it is restarted on the next call")

    def _mark_crashed(self, reason: str) -> None:
        if self.state != "connected":
            return
        self.state, self.error = "crashed", reason
        self._session = None
        self._stop.set()
        self.settings.warn(f"MCP server '{self.name}' stopped: {reason} (restarted on the next call)")


async def all_pages(list_method: Any, attribute: str) -> list[Any]:
    from mcp_types import PaginatedRequestParams

    items: list[Any] = []
    cursor: str | None = None
    for _ in range(100):  # a server that pages forever is cut off
        result = await list_method(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        items.extend(getattr(result, attribute))
        cursor = result.next_cursor
        if not cursor:
            break
    return items


@contextlib.asynccontextmanager
async def _owning(client: Any, transport: contextlib.AbstractAsyncContextManager[Any]) -> Any:
    """Close the HTTP client we created once the transport is done with it."""
    async with client, transport as streams:
        yield streams
