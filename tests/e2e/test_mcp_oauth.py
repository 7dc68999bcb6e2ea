"""MCP OAuth end to end: the SDK-written MCP server behind its loopback authorization server
(tests/support/mcptestserver/oauth.py), `amplifier mcp login` with a browser stand-in that follows the authorize
redirect, `amplifier run` using the kept token (refreshed once it has expired), `mcp logout`, and a headless run
without a token saying how to log in."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path

from fakeapi import ToolCall, Turn
from mcptestserver.fixtures import browser_command


def _stored(home: Path) -> dict[str, dict]:
    """The key store's MCP OAuth records, decoded, by key name."""
    records = {}
    for line in (home / "config" / "keys.env").read_text(encoding="utf-8").splitlines():
        name, _, value = line.partition("=")
        if name.startswith("AMPLIFIER_MCP_OAUTH_"):
            records[name] = json.loads(base64.urlsafe_b64decode(value.strip('"')))
    return records


def _store_record(home: Path, name: str, record: dict) -> None:
    path = home / "config" / "keys.env"
    encoded = base64.urlsafe_b64encode(json.dumps(record).encode()).decode()
    lines = [f'{name}="{encoded}"' if line.startswith(name + "=") else line
             for line in path.read_text(encoding="utf-8").splitlines()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _echo_script(server) -> None:
    server.add(Turn(tool_calls=[ToolCall("mcp__secure__echo", {"text": "behind oauth"})]),
               when_last_user_contains="echo")
    server.add(Turn(text="echoed."), when_last_tool_result_contains="echo: behind oauth")


def test_login_run_refresh_and_logout(e2e_api, mcp_oauth_server: str) -> None:
    e2e_api.profile("mcp", tools=("tool-mcp",), hooks=("hooks-logging", "hooks-redaction"))
    added = e2e_api.run("mcp", "add", "secure", mcp_oauth_server)
    assert added.returncode == 0, added.stderr
    opened = e2e_api.home / "browser.log"
    browser = {"BROWSER": browser_command(), "FAKE_BROWSER_LOG": str(opened)}

    login = e2e_api.run("mcp", "login", "secure", env=browser)
    assert login.returncode == 0, login.stderr
    assert "Logged in to MCP server 'secure'" in login.stdout
    authorize_url = opened.read_text().strip()
    assert authorize_url in login.stderr  # printed, and opened with $BROWSER
    keys = e2e_api.home / "config" / "keys.env"
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600
    [(key, record)] = _stored(e2e_api.home).items()
    token = record["tokens"]["access_token"]
    assert record["server"] == "secure" and record["url"] == mcp_oauth_server
    listing = e2e_api.run("mcp", "list")
    assert "logged in" in listing.stdout
    tested = e2e_api.run("mcp", "test", "secure", env={"BROWSER": "false"})  # with the kept token
    assert tested.returncode == 0, tested.stderr
    assert "MCP server 'secure' connected (http, logged in): 2 tool(s)" in tested.stdout

    _echo_script(e2e_api.server)
    run = e2e_api.run("run", "-P", "mcp", "--approval", "allow", "echo it")  # headless: uses the kept token
    assert run.returncode == 0, run.stderr
    assert run.stdout == "echoed.\n"
    assert _stored(e2e_api.home)[key]["tokens"]["access_token"] == token  # still valid: no refresh
    for place in (e2e_api.project, e2e_api.home):  # the token is in the key store and nowhere else
        for path in place.rglob("*"):
            if path.is_file() and path != keys:
                assert token not in path.read_text(errors="replace"), path
    assert token not in run.stderr + run.stdout + login.stdout + login.stderr

    record["expires_at"] -= 7200  # two hours later: the token has expired
    _store_record(e2e_api.home, key, record)
    assert "refreshed on use" in e2e_api.run("mcp", "list").stdout
    _echo_script(e2e_api.server)
    again = e2e_api.run("run", "-P", "mcp", "--approval", "allow", "echo it", env={"BROWSER": "false"})
    assert again.returncode == 0, again.stderr
    assert again.stdout == "echoed.\n"
    refreshed = _stored(e2e_api.home)[key]
    assert refreshed["tokens"]["access_token"] != token
    assert refreshed["expires_at"] > record["expires_at"] + 3600

    logout = e2e_api.run("mcp", "logout", "secure")
    assert logout.returncode == 0 and "Logged out of MCP server 'secure'" in logout.stdout
    assert _stored(e2e_api.home) == {}
    assert "logged in" not in e2e_api.run("mcp", "list").stdout

    e2e_api.server.add(Turn(text="no tool today."), when_last_user_contains="echo")
    headless = e2e_api.run("run", "-P", "mcp", "--approval", "allow", "echo it", env=browser)
    assert headless.returncode == 0, headless.stderr  # the session goes on without the server
    warning = [line for line in headless.stderr.splitlines() if "secure" in line]
    assert warning == ["[warning] tool-mcp: MCP server 'secure' failed to start: run `amplifier mcp login secure` "
                       "(or use it once in the chat)"]
    assert opened.read_text().strip() == authorize_url  # no browser was opened for the headless run
