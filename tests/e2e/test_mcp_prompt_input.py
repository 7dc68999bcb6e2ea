"""`amplifier run` with MCP in its prompt: `/mcp__server__prompt args` sends the server's prompt, `@server:uri`
attaches a resource (a template's URI filled in too), and one that cannot be read stops the run with exit 2 before
anything is sent. The server is the SDK-written test server over Streamable HTTP."""

from __future__ import annotations

import json

from fakeapi import Turn
from mcptestserver import README_TEXT


def _configure(e2e_api, url: str) -> None:
    user_file = e2e_api.home / "config" / "mcp.json"
    user_file.parent.mkdir(parents=True, exist_ok=True)
    user_file.write_text(json.dumps({"mcpServers": {"web": {"type": "http", "url": url}}}))
    e2e_api.profile("mcp", tools=("tool-mcp",))


def test_run_sends_an_mcp_prompt_command(e2e_api, mcp_http_server: str) -> None:
    _configure(e2e_api, mcp_http_server)
    e2e_api.server.add(Turn(text="reviewed."), when_last_user_contains="Please review the parser carefully.")
    result = e2e_api.run("run", "-P", "mcp", "/mcp__web__review the parser")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "reviewed.\n"
    assert e2e_api.server.requests[0].user_texts == ["Please review the parser carefully."]


def test_run_attaches_mentioned_resources_and_refuses_one_it_cannot_read(e2e_api, mcp_http_server: str) -> None:
    _configure(e2e_api, mcp_http_server)
    e2e_api.server.add(Turn(text="summarised."), when_last_user_contains="from a resource template")
    result = e2e_api.run("run", "-P", "mcp", "summarise @web:test://readme and @web:test://greeting/ada.")
    assert result.returncode == 0, result.stderr
    [sent] = e2e_api.server.requests[0].user_texts
    assert f'<resource server="web" uri="test://readme">\n{README_TEXT}\n</resource>' in sent
    assert '<resource server="web" uri="test://greeting/ada">\nHello, ada, from a resource template.\n' in sent

    missing = e2e_api.run("run", "-P", "mcp", "read @web:test://nothing-here and @nope:test://readme")
    assert missing.returncode == 2
    assert "@web:test://nothing-here: MCP server 'web' could not read it" in missing.stderr
    assert "@nope:test://readme: no MCP server named 'nope' (servers: web)" in missing.stderr
    assert "Traceback" not in missing.stderr
    assert len(e2e_api.server.requests) == 1  # nothing more was sent
