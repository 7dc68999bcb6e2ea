"""`amplifier mcp list|add|remove|get|test`: definitions written to the right file by scope, read back in
tool-mcp's merge order, and `test` connecting to a real server (mcp-server-time over stdio)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from warmstart import python_module_command

USER_FILE = "config/mcp.json"


def _read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_add_writes_each_scope_file_and_list_shows_which_definition_wins(cli, project_dir, amplifier_home) -> None:
    assert cli("mcp", "add", "time", "--", sys.executable, "-m", "mcp_server_time").exit_code == 0
    result = cli("mcp", "add", "docs", "https://docs.example/mcp", "-H", "Authorization: Bearer ${DOCS_TOKEN}",
                 "--shared")
    assert result.exit_code == 0, result.output
    assert cli("mcp", "add", "time", "--project", "-e", "TZ=UTC", "--", "uvx", "mcp-server-time").exit_code == 0

    assert _read(amplifier_home / USER_FILE) == {"mcpServers": {
        "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}}
    assert _read(project_dir / ".mcp.json") == {"mcpServers": {"docs": {
        "type": "http", "url": "https://docs.example/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}}}
    assert _read(project_dir / ".amplifier" / "mcp.json") == {"mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}}}}

    rows = json.loads(cli("mcp", "list", "--json").stdout)
    assert [(r["name"], r["scope"], r["active"]) for r in rows] == [
        ("time", "user", False), ("time", "project", True), ("docs", "shared", True)]
    got = json.loads(cli("mcp", "get", "time", "--json").stdout)
    assert (got["scope"], got["target"]) == ("project", "uvx mcp-server-time")


def test_add_keeps_the_rest_of_an_existing_file(cli, project_dir) -> None:
    (project_dir / ".mcp.json").write_text(json.dumps({"mcpServers": {"a": {"command": "x", "alwaysAllow": ["t"]}},
                                                       "other": 1}))
    assert cli("mcp", "add", "b", "--shared", "--", "y").exit_code == 0
    assert _read(project_dir / ".mcp.json") == {
        "mcpServers": {"a": {"command": "x", "alwaysAllow": ["t"]}, "b": {"command": "y", "args": []}}, "other": 1}


def test_remove_finds_the_one_file_or_asks_for_a_scope(cli, project_dir, amplifier_home) -> None:
    cli("mcp", "add", "t", "--", "a")
    cli("mcp", "add", "t", "--project", "--", "b")
    ambiguous = cli("mcp", "remove", "t")
    assert ambiguous.exit_code == 2 and "several scopes (user, project)" in ambiguous.output
    assert cli("mcp", "remove", "t", "--project").exit_code == 0
    assert _read(project_dir / ".amplifier" / "mcp.json") == {"mcpServers": {}}
    assert cli("mcp", "remove", "t").exit_code == 0
    assert _read(amplifier_home / USER_FILE) == {"mcpServers": {}}
    missing = cli("mcp", "remove", "t")
    assert missing.exit_code == 2 and "no MCP server named 't'" in missing.output


def test_bad_input_is_one_message_and_exit_2(cli, project_dir) -> None:
    for args, expected in [
        (("mcp", "add", "bad name", "--", "x"), "'bad name' is not a valid server name"),
        (("mcp", "add", "x"), "give the server's command"),
        (("mcp", "add", "x", "--transport", "sse", "--", "cmd"), "a sse server is one http(s) URL"),
        (("mcp", "add", "x", "-e", "NOEQUALS", "--", "cmd"), "--env 'NOEQUALS' is not KEY=VALUE"),
        (("mcp", "add", "x", "--global", "--shared", "--", "cmd"), "choose only one of"),
        (("mcp", "get", "nope"), "no MCP server named 'nope'"),
        (("mcp", "login", "nope"), "no MCP server named 'nope'"),
    ]:
        result = cli(*args)
        assert result.exit_code == 2, (args, result.output)
        assert expected in result.output, (args, result.output)
        assert "Traceback" not in result.output
    (project_dir / ".mcp.json").write_text("{broken")
    broken = cli("mcp", "list")
    assert broken.exit_code == 2
    assert f"{project_dir / '.mcp.json'}:1: invalid JSON" in broken.output


def test_test_connects_and_lists_the_tools(cli, project_dir) -> None:
    cli("mcp", "add", "time", "--", *python_module_command("mcp_server_time"))
    result = cli("mcp", "test", "time")
    assert result.exit_code == 0, result.output
    assert "MCP server 'time' connected (stdio): 2 tool(s)" in result.stdout
    assert "mcp__time__get_current_time" in result.stdout


def test_test_of_a_failing_server_says_why_and_shows_its_stderr(cli, project_dir) -> None:
    cli("mcp", "add", "broken", "--", sys.executable, "-c", "import sys; sys.exit('cannot start: no token')")
    result = cli("mcp", "test", "broken")
    assert result.exit_code == 1
    assert "MCP server 'broken' did not connect: Connection closed" in result.output
    assert "cannot start: no token" in result.output


def test_list_reads_upstreams_files_too_in_tool_mcps_order(cli, project_dir, amplifier_home, monkeypatch) -> None:
    import os

    upstream = Path(os.environ["HOME"]) / ".amplifier" / "mcp.json"
    upstream.parent.mkdir(parents=True)
    upstream.write_text(json.dumps({"mcpServers": {  # as a Windows editor saves it: with a BOM
        "old": {"url": "https://old.example/sse", "transport": "sse"}, "both": {"command": "from-upstream"}}}),
        encoding="utf-8-sig")
    named = project_dir / "elsewhere.json"
    named.write_text(json.dumps({"mcpServers": {"both": {"command": "from-variable"}}}))
    monkeypatch.setenv("AMPLIFIER_MCP_CONFIG", str(named))
    assert cli("mcp", "add", "both", "--", "from-user").exit_code == 0

    rows = json.loads(cli("mcp", "list", "--json").stdout)
    assert [(r["name"], r["scope"], r["transport"], r["active"]) for r in rows] == [
        ("old", "upstream", "sse", True), ("both", "upstream", "stdio", False), ("both", "user", "stdio", False),
        ("both", "env", "stdio", True)]
    assert json.loads(cli("mcp", "get", "both", "--json").stdout)["file"] == str(named)
    assert cli("mcp", "remove", "old").exit_code == 0
    assert "old" not in json.loads(upstream.read_text(encoding="utf-8"))["mcpServers"]


def test_login_is_for_http_servers_and_logout_says_when_nothing_was_kept(cli, project_dir) -> None:
    cli("mcp", "add", "local", "--", "some-command")
    login = cli("mcp", "login", "local")
    assert login.exit_code == 2
    assert "MCP server 'local' is a stdio server; only HTTP servers log in" in login.output
    logout = cli("mcp", "logout", "local")
    assert logout.exit_code == 0 and "No login kept for MCP server 'local'." in logout.output
