"""OAuth against the loopback authorization server of tests/support/mcptestserver/oauth.py (the SDK's server side):
the first connection logs in through the browser stand-in, the token goes to the store the app gives (and only
there), a stored token that is about to end is refreshed, and nobody-to-ask fails the server with how to log in."""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from amplifier_module_tool_mcp.connection import MemoryOAuthStore
from mcptestserver.fixtures import browser_command

from amplifier_core.testing import MockCoordinator

pytestmark = pytest.mark.asyncio


class Shown:
    def __init__(self) -> None:
        self.messages: list[tuple[str, str]] = []

    def show_message(self, message: str, level: str = "info", source: str = "hook") -> None:
        self.messages.append((level, message))


async def _mount(url: str, store: MemoryOAuthStore, tmp_path: Path, *, interactive: bool,
                 spec: dict[str, Any] | None = None) -> tuple[Any, Shown]:
    from amplifier_module_tool_mcp import mount

    shown = Shown()
    coordinator = MockCoordinator()
    coordinator.display_system = shown
    coordinator.register_capability("session.dir", str(tmp_path))
    coordinator.register_capability("session.working_dir", str(tmp_path))
    coordinator.register_capability("mcp.oauth_store", store)
    coordinator.register_capability("approval.interactive", interactive)
    server = spec if spec is not None else {"type": "http", "url": url}
    await mount(coordinator, {"read_config_files": False, "servers": {"secure": server}})
    return coordinator, shown


async def _revoke_access_tokens(url: str) -> None:
    """The server ends every access token early (its refresh tokens stay)."""
    revoke = urllib.request.Request(url.removesuffix("/mcp") + "/test/revoke-access", method="POST")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    assert (await asyncio.to_thread(lambda: opener.open(revoke, timeout=10).read())) == b"revoked"


async def _grants(coordinator: Any) -> dict[str, int]:
    result = await coordinator.get("tools")["mcp__secure__grants"].execute({})
    return json.loads(result.output)


async def test_first_use_logs_in_through_the_browser_and_keeps_the_token_in_the_store(
        mcp_oauth_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened = tmp_path / "browser.log"
    monkeypatch.setenv("BROWSER", browser_command())
    monkeypatch.setenv("FAKE_BROWSER_LOG", str(opened))
    store = MemoryOAuthStore()
    coordinator, shown = await _mount(mcp_oauth_server, store, tmp_path, interactive=True)
    try:
        assert (await coordinator.get("tools")["mcp__secure__echo"].execute({"text": "hi"})).output == "echo: hi"
        assert await _grants(coordinator) == {"registrations": 1, "authorization_code": 1, "refresh_token": 0}
        row = coordinator.get_capability("mcp.status")()[0]
        assert row["auth"] == "logged in"
    finally:
        await coordinator.cleanup()
    authorize_url = opened.read_text().strip()
    assert "code_challenge_method=S256" in authorize_url  # PKCE
    assert any(authorize_url in message for level, message in shown.messages if level == "info")
    record = store.load("secure", mcp_oauth_server)
    assert record is not None and record["tokens"]["access_token"].startswith("at-")
    assert record["client"]["client_id"]
    secrets = (record["tokens"]["access_token"], record["tokens"]["refresh_token"])
    assert not any(secret in message for secret in secrets for _level, message in shown.messages)
    assert not any(secret in path.read_text(errors="replace") for secret in secrets
                   for path in tmp_path.rglob("*") if path.is_file())


async def test_a_stored_token_about_to_end_is_refreshed_without_the_browser(
        mcp_oauth_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROWSER", browser_command())
    store = MemoryOAuthStore()
    first, _shown = await _mount(mcp_oauth_server, store, tmp_path, interactive=True)
    await first.cleanup()
    record = store.load("secure", mcp_oauth_server)
    assert record is not None
    old_token = record["tokens"]["access_token"]
    record["expires_at"] = record["expires_at"] - 3600  # an hour later: it has expired
    store.save("secure", mcp_oauth_server, record)
    monkeypatch.setenv("BROWSER", "false")  # a login now would fail: only a refresh can answer
    second, _shown = await _mount(mcp_oauth_server, store, tmp_path, interactive=False)
    try:
        assert await _grants(second) == {"registrations": 1, "authorization_code": 1, "refresh_token": 1}
    finally:
        await second.cleanup()
    refreshed = store.load("secure", mcp_oauth_server)
    assert refreshed is not None and refreshed["tokens"]["access_token"] != old_token


@pytest.mark.parametrize("spec", [None, {}], ids=["http", "url-alone"])  # a bare url tries SSE too: same answer
async def test_nobody_to_log_in_fails_the_server_with_how_to_log_in(
        mcp_oauth_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, spec: dict[str, Any] | None) -> None:
    monkeypatch.setenv("BROWSER", "false")
    store = MemoryOAuthStore()
    server = None if spec is None else {"url": mcp_oauth_server}
    coordinator, shown = await _mount(mcp_oauth_server, store, tmp_path, interactive=False, spec=server)
    try:
        row = coordinator.get_capability("mcp.status")()[0]
        assert row["state"] == "failed" and row["auth"] == "login needed"
        warnings = [message for level, message in shown.messages if level == "warning"]
        assert warnings == ["MCP server 'secure' failed to start: run `amplifier mcp login secure` "
                            "(or use it once in the chat)"]
        assert "mcp__secure__echo" not in coordinator.get("tools")
    finally:
        await coordinator.cleanup()
    record = store.load("secure", mcp_oauth_server) or {}
    assert "tokens" not in record  # the client registration may be kept for the login; no token was made
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]  # the warning line is all


async def test_a_login_the_user_refuses_fails_the_server_saying_so(
        mcp_oauth_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROWSER", browser_command())
    monkeypatch.setenv("FAKE_BROWSER_DENY", "1")
    store = MemoryOAuthStore()
    coordinator, shown = await _mount(mcp_oauth_server, store, tmp_path, interactive=True)
    try:
        assert coordinator.get_capability("mcp.status")()[0]["state"] == "failed"
        warnings = [message for level, message in shown.messages if level == "warning"]
        assert warnings == ["MCP server 'secure' failed to start: the authorization server refused the login "
                            "(access_denied)"]
    finally:
        await coordinator.cleanup()


async def test_a_token_the_server_refuses_before_it_expires_is_refreshed_not_logged_in_again(
        mcp_oauth_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROWSER", browser_command())
    store = MemoryOAuthStore()
    first, _shown = await _mount(mcp_oauth_server, store, tmp_path, interactive=True)
    await first.cleanup()
    await _revoke_access_tokens(mcp_oauth_server)
    monkeypatch.setenv("BROWSER", "false")
    second, _shown = await _mount(mcp_oauth_server, store, tmp_path, interactive=False)  # nobody to log in
    try:
        assert await _grants(second) == {"registrations": 1, "authorization_code": 1, "refresh_token": 1}
    finally:
        await second.cleanup()


async def test_a_token_another_session_refreshed_is_taken_from_the_store(
        mcp_oauth_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROWSER", browser_command())
    store = MemoryOAuthStore()  # shared, as the key store is by a chat and its sub-agent
    first, _shown = await _mount(mcp_oauth_server, store, tmp_path / "a", interactive=True)
    monkeypatch.setenv("BROWSER", "false")
    second, _shown = await _mount(mcp_oauth_server, store, tmp_path / "b", interactive=False)
    try:
        await _revoke_access_tokens(mcp_oauth_server)
        assert (await first.get("tools")["mcp__secure__echo"].execute({"text": "a"})).output == "echo: a"  # refreshes
        assert (await second.get("tools")["mcp__secure__echo"].execute({"text": "b"})).output == "echo: b"
        assert await _grants(second) == {"registrations": 1, "authorization_code": 1, "refresh_token": 1}
    finally:
        await first.cleanup()
        await second.cleanup()
