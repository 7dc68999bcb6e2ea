"""OAuth for HTTP servers, as the MCP authorization spec sets it, through the SDK's ``OAuthClientProvider``: a 401
leads to the protected-resource metadata, the authorization server's metadata, dynamic client registration (or
the client id the server's ``oauth`` config gives), then the authorization code flow with PKCE.

What this file adds around the SDK: tokens live in the app's key store (capability ``mcp.oauth_store``; this
module never touches files of its own), keyed by server name *and* URL so that a server renamed onto another host
never receives the old host's token; the login opens the user's browser (``webbrowser``, so ``$BROWSER`` is
honoured) and takes the code on a loopback listener; when nobody can answer (a headless run) the login is refused
with the command that does it instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

CALLBACK_PATH = "/callback"
LOGIN_TIMEOUT = 300.0  # seconds the browser has to come back with the code
REFRESH_MARGIN = 60.0  # a stored token that ends within this is refreshed before it is used


class OAuthStore(Protocol):
    """The app's side (capability ``mcp.oauth_store``): one record per server name and URL, kept secret."""

    def load(self, server: str, url: str) -> dict[str, Any] | None: ...

    def save(self, server: str, url: str, record: dict[str, Any]) -> None: ...

    def forget(self, server: str, url: str | None = None) -> int: ...


class LoginRequired(Exception):
    """The server wants a login that cannot happen (nobody to answer, refused, no answer from the browser)."""


def _not_a_flow_traceback(record: logging.LogRecord) -> bool:
    """The SDK logs every failed OAuth flow with its traceback; the server's failure line says why already."""
    return not (record.exc_info and record.name == "mcp.client.auth.oauth2")


def _quiet_sdk_tracebacks() -> None:
    sdk_logger = logging.getLogger("mcp.client.auth.oauth2")
    if _not_a_flow_traceback not in sdk_logger.filters:
        sdk_logger.addFilter(_not_a_flow_traceback)


@dataclass
class LoginSettings:
    """How a login may happen in this session: whether a person can answer, and how to tell them things."""

    interactive: bool
    show: Callable[[str], None]


def login_hint(server: str) -> str:
    """What a headless run says about a server that wants a login."""
    return f"run `amplifier mcp login {server}` (or use it once in the chat)"


@dataclass
class StoredCredentials:
    """The SDK's ``TokenStorage`` over one key-store record. Knows when the stored token expires, which the
    SDK forgets between sessions (it keeps ``expires_in``, relative to a time it does not store)."""

    store: OAuthStore
    server: str
    url: str
    configured_client: dict[str, Any] | None = None
    record: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.record = dict(self.store.load(self.server, self.url) or {})

    @property
    def logged_in(self) -> bool:
        return bool((self.record.get("tokens") or {}).get("access_token"))

    @property
    def expires_at(self) -> float | None:
        value = self.record.get("expires_at")
        return float(value) if isinstance(value, (int, float)) else None

    def reload(self) -> None:
        """Read the record again: another session (a sub-agent, a second chat) may have refreshed the token."""
        self.record = dict(self.store.load(self.server, self.url) or {})

    def _save(self) -> None:
        self.store.save(self.server, self.url, {"server": self.server, "url": self.url, **self.record})

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        tokens = self.record.get("tokens")
        return OAuthToken.model_validate(tokens) if tokens else None

    async def set_tokens(self, tokens: Any) -> None:
        self.record["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        self.record["expires_at"] = time.time() + tokens.expires_in if tokens.expires_in else None
        self._save()

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        if self.configured_client is not None:
            return OAuthClientInformationFull.model_validate(self.configured_client)
        client = self.record.get("client")
        return OAuthClientInformationFull.model_validate(client) if client else None

    async def set_client_info(self, client_info: Any) -> None:
        if self.configured_client is not None:
            return  # the config's client id is the one to use, not a registration to remember
        self.record["client"] = client_info.model_dump(mode="json", exclude_none=True)
        self._save()

    def stored_redirect_port(self) -> int | None:
        for uri in (self.record.get("client") or {}).get("redirect_uris") or []:
            port = urlsplit(str(uri)).port
            if port:
                return port
        return None

    def drop_registration(self) -> None:
        """The registered redirect URI cannot be listened on any more: register again at the next login."""
        self.record.pop("client", None)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as asyncio's listener binds it
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


_PAGE = ("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\n\r\n"
         "<!doctype html><title>amplifier</title><p>{text}</p>")


class CallbackListener:
    """The loopback redirect target: takes one ``GET /callback?code=...&state=...`` and answers the browser."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[dict[str, str]] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def start(self) -> None:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._answer, "127.0.0.1", self.port)

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")
            target = request_line.split(" ")[1] if request_line.count(" ") >= 2 else ""
            parts = urlsplit(target)
            query = {key: values[0] for key, values in parse_qs(parts.query).items()}
            if parts.path != CALLBACK_PATH or not ({"code", "error"} & set(query)):
                writer.write(b"HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n")
                return
            done = "error" not in query
            text = ("You are logged in; you can close this tab and go back to amplifier." if done else
                    "The login did not complete; see amplifier for what to do.")
            writer.write(_PAGE.format(text=text).encode())
            if self._result is not None and not self._result.done():
                self._result.set_result(query)
        except (OSError, TimeoutError, IndexError):
            return
        finally:
            with contextlib.suppress(OSError):
                await writer.drain()
                writer.close()

    async def wait(self, timeout: float) -> dict[str, str]:
        assert self._result is not None
        return await asyncio.wait_for(asyncio.shield(self._result), timeout)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None


@functools.cache
def _provider_class() -> type:
    """The SDK's provider with three fixes: a loaded token's expiry is known (the SDK takes any loaded token as
    valid for ever); a token the server refuses before it expires is refreshed before a new login is asked for
    (the SDK goes straight to the browser); and a token another session refreshed meanwhile is taken from the
    store instead of refreshing again with a spent refresh token. Made on first use: the SDK is imported only
    when needed."""
    from mcp.client.auth import OAuthClientProvider

    class RefreshingProvider(OAuthClientProvider):
        credentials: StoredCredentials | None = None

        def _expiry(self, expires_at: float | None) -> float | None:
            return expires_at - REFRESH_MARGIN if expires_at is not None else None

        async def _initialize(self) -> None:
            await super()._initialize()
            if self.credentials is not None:  # one that ends within the margin is refreshed first
                self.context.token_expiry_time = self._expiry(self.credentials.expires_at)

        async def _adopt_newer_token(self) -> bool:
            """Take the kept token when another session refreshed it since we loaded ours: refreshing again
            would spend a refresh token the server has already replaced."""
            from mcp.shared.auth import OAuthToken

            if self.credentials is None:
                return False
            self.credentials.reload()
            kept = self.credentials.record.get("tokens") or {}
            current = self.context.current_tokens
            if not kept.get("access_token") or (current is not None and kept["access_token"] == current.access_token):
                return False
            expiry = self._expiry(self.credentials.expires_at)
            if expiry is not None and expiry < time.time():
                return False
            self.context.current_tokens = OAuthToken.model_validate(kept)
            self.context.token_expiry_time = expiry
            return True

        async def _auth_flow(self, request: Any) -> Any:
            if self._initialized and not self.context.is_token_valid():
                await self._adopt_newer_token()
            inner = super()._auth_flow(request)
            outgoing = await inner.__anext__()
            retried = False
            while True:
                response = yield outgoing
                if outgoing is request and response.status_code == 401 and not retried:
                    adopted = await self._adopt_newer_token()
                    if adopted or self.context.can_refresh_token():
                        retried = True  # once: a server that refuses this token too gets the SDK's own flow
                        await inner.aclose()  # leaves the SDK's lock; its next flow refreshes (or uses the
                        if not adopted:  # adopted token), then sends the request again
                            self.context.token_expiry_time = 1.0  # long past (0 would read as "no expiry")
                        inner = super()._auth_flow(request)
                        outgoing = await inner.__anext__()
                        continue
                try:
                    outgoing = await inner.asend(response)
                except StopAsyncIteration:
                    return

    return RefreshingProvider


class ServerLogin:
    """One server's OAuth: builds the SDK's provider (an ``httpx2.Auth``) and does the browser part of a login."""

    def __init__(self, server: str, url: str, credentials: StoredCredentials, settings: LoginSettings, *,
                 scope: str | None = None, callback_port: int | None = None) -> None:
        self.server = server
        self.url = url
        self.credentials = credentials
        self.settings = settings
        self.scope = scope
        self.waiting_for_person = False
        self.login_refused = False  # nobody could log in here
        self.failure: str | None = None  # why the login did not complete, for the server's failure line
        _quiet_sdk_tracebacks()
        # The redirect URI is part of the client's registration: keep its port while it can be listened on. A
        # refresh never uses it, so only a session that can log in registers again when the port is taken.
        port = callback_port or credentials.stored_redirect_port()
        if port is not None and callback_port is None and settings.interactive and not _port_free(port):
            credentials.drop_registration()
            port = None
        port = port or _free_port()
        self._listener = CallbackListener(port)

    @property
    def redirect_uri(self) -> str:
        return self._listener.redirect_uri

    def auth(self) -> Any:
        from mcp.shared.auth import OAuthClientMetadata

        metadata = OAuthClientMetadata(
            client_name="amplifier", redirect_uris=[self._listener.redirect_uri],
            grant_types=["authorization_code", "refresh_token"], response_types=["code"],
            token_endpoint_auth_method="none" if self.credentials.configured_client is None else None,
            scope=self.scope,
        )
        credentials = self.credentials
        provider = _provider_class()(self.url, metadata, credentials, redirect_handler=self._open_browser,
                                     callback_handler=self._take_code)
        provider.credentials = credentials
        return provider

    async def _open_browser(self, authorize_url: str) -> None:
        if not self.settings.interactive:
            self.login_refused = True
            self.failure = login_hint(self.server)
            raise LoginRequired(self.failure)
        self.waiting_for_person = True
        await self._listener.start()
        self.settings.show(f"MCP server '{self.server}' needs you to log in; opening your browser at:\n"
                           f"  {authorize_url}\n(open it yourself if no browser comes up)")
        import webbrowser

        with contextlib.suppress(Exception):  # no browser is fine: the URL is on screen
            await asyncio.to_thread(webbrowser.open, authorize_url)  # in a thread: $BROWSER may block

    async def _take_code(self) -> Any:
        from mcp.client.auth import AuthorizationCodeResult

        try:
            query = await self._listener.wait(LOGIN_TIMEOUT)
        except TimeoutError:
            self.failure = (f"the login got no answer from the browser within {LOGIN_TIMEOUT:g}s; run "
                            f"`amplifier mcp login {self.server}` to try again")
            raise LoginRequired(self.failure) from None
        finally:
            await self._listener.close()
            self.waiting_for_person = False
        if "error" in query:
            detail = query.get("error_description") or query["error"]
            self.failure = f"the authorization server refused the login ({detail})"
            raise LoginRequired(self.failure)
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))
