"""An MCP server behind OAuth, for tests: the SDK's own authorization server routes (metadata, dynamic client
registration, authorize, token) and its protected-resource metadata, with an in-memory provider that approves
every authorization at once (the "user" always says yes), so a browser stand-in that follows the authorize
redirect lands on the client's loopback callback.

Tools: ``echo(text)``, ``grants()`` (how many authorization-code and refresh-token grants were made, and how
many registrations), so a test can tell a refresh from a new login. ``POST /test/revoke-access`` ends every access
token before its time (refresh tokens stay).
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class ApprovingProvider:
    """Keeps clients, codes and tokens in memory; access tokens live ``token_lifetime`` seconds and are
    revoked when their refresh token is used (rotation, as real servers do)."""

    def __init__(self, token_lifetime: int) -> None:
        self.token_lifetime = token_lifetime
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.counts = {"registrations": 0, "authorization_code": 0, "refresh_token": 0}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self.counts["registrations"] += 1

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300, client_id=client.client_id,
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        found = self.codes.get(code)
        return found if found and found.client_id == client.client_id else None

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = "at-" + secrets.token_urlsafe(24), "rt-" + secrets.token_urlsafe(24)
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes, resource=resource,
                                          expires_at=int(time.time()) + self.token_lifetime)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=access, expires_in=self.token_lifetime, refresh_token=refresh,
                          scope=" ".join(scopes) or None)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        self.counts["authorization_code"] += 1
        return self._issue(authorization_code.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        found = self.refresh.get(refresh_token)
        return found if found and found.client_id == client.client_id else None

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        for token, access in list(self.access.items()):  # the old access tokens of this client end here
            if access.client_id == refresh_token.client_id:
                del self.access[token]
        self.counts["refresh_token"] += 1
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(getattr(token, "token", ""), None)
        self.refresh.pop(getattr(token, "token", ""), None)


def build_oauth_server(base_url: str, token_lifetime: int) -> MCPServer:
    """The MCP endpoint at ``{base_url}/mcp``, its authorization server at ``base_url`` (one process)."""
    provider = ApprovingProvider(token_lifetime)
    server = MCPServer(
        "amplifier-oauth-test-server",
        auth_server_provider=provider,
        auth=AuthSettings(issuer_url=base_url, resource_server_url=f"{base_url}/mcp", validate_token_resource=False,
                          client_registration_options=ClientRegistrationOptions(enabled=True)),
    )

    @server.tool(description="Echo the text back.")
    def echo(text: str) -> str:
        return f"echo: {text}"

    @server.custom_route("/test/revoke-access", methods=["POST"])
    async def revoke_access(request: Any) -> Any:
        """Forget every access token (refresh tokens stay), as a server that revoked them early."""
        from starlette.responses import PlainTextResponse

        provider.access.clear()
        return PlainTextResponse("revoked")

    @server.tool(description="How many registrations and grants the authorization server made.")
    def grants() -> dict[str, int]:
        return dict(provider.counts)

    return server
