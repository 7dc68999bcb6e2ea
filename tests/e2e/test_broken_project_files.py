"""A typo in the project's hooks.json or MCP servers file is one warning naming that file, the key and the fix;
the session goes on without that file (or that server), and the other servers still start."""

from __future__ import annotations

import json

from fakeapi import Turn
from mcptestserver import module_server


def test_typos_in_hooks_and_mcp_files_are_warnings_and_the_session_goes_on(e2e_api) -> None:
    project = e2e_api.project
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {
        "typo": {"comand": "npx", "args": ["x"]},
        "fine": module_server("mcp_server_time", "--local-timezone", "UTC")}}))
    hooks = project / ".amplifier" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "hooks.json").write_text('{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", '
                                      '"comand": "true"}]}]}}')
    (project / ".amplifier" / "mcp.json").write_text("{ not json")
    e2e_api.profile("mine", user=True, tools=("tool-mcp",), hooks=("hooks-streaming-ui", "hook-shell"))
    e2e_api.server.add(Turn(text="still here"))

    result = e2e_api.run("run", "-P", "mine", "hi")

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("still here")
    assert "MCP server 'typo' skipped" in result.stderr and "did you mean 'command'" in result.stderr
    assert str(project / ".mcp.json") in result.stderr
    assert "MCP servers file skipped" in result.stderr and "mcp.json" in result.stderr
    assert "hooks file skipped" in result.stderr and "hooks.json" in result.stderr
    assert "Traceback" not in result.stderr
    assert "mcp__fine__get_current_time" in e2e_api.server.requests[0].tool_names
