"""An upstream Amplifier bundle that mounts tool-mcp and hook-shell with upstream's own config (its module
keys, ``~/.amplifier/mcp.json``, ``~/.amplifier/hooks/``, a matcher on upstream's MCP tool name) runs through
`amplifier run` with the bundled modules: the fake LLM calls the MCP tool, the user's shell hook sees it.

The bundle's ``source:`` lines name upstream's repositories, as real upstream bundles do: for modules amplifier
bundles they mean the bundled modules, so the run needs no clone and no network."""

from __future__ import annotations

import json
import os
from pathlib import Path

from fakeapi import ToolCall, Turn
from mcptestserver import module_server

MODULES = Path(__file__).resolve().parents[2] / "modules"

BUNDLE = """---
bundle:
  name: upstream-tools
  version: 1.0.0
  description: An upstream-shaped bundle with MCP and shell hooks

session:
  orchestrator: {module: loop-basic}
  context: {module: context-simple}

providers:
  - module: provider-anthropic
    config: {max_retries: 1, min_retry_delay: 0.01, max_retry_delay: 0.02, retry_jitter: false}

tools:
  - module: tool-mcp
    source: git+https://github.com/microsoft/amplifier-module-tool-mcp@main
    config:
      verbose_servers: false
      max_content_size: 65536

hooks:
  - module: hook-shell
    source: git+https://github.com/microsoft/amplifier-module-hook-shell@main
    config:
      enabled: true
      timeout: 30
      allow_blocking: true
---

UPSTREAM-BUNDLE: you answer briefly.
"""


def test_an_upstream_bundle_with_upstream_files_runs_with_the_bundled_modules(e2e_api) -> None:
    home = Path(os.environ["HOME"]) / ".amplifier"
    (home / "hooks").mkdir(parents=True)
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"echo": {
        **module_server("amplifier_module_tool_mcp.echo_server"), "transport": "stdio"}}}))
    record = 'cat > "$AMPLIFIER_PROJECT_DIR/seen.json"'
    (home / "hooks" / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "mcp_echo_.*", "hooks": [{"type": "command", "command": record}]}]}}))
    bundle = e2e_api.project / ".amplifier" / "profiles" / "upstream-tools.md"
    bundle.parent.mkdir(parents=True, exist_ok=True)
    bundle.write_text(BUNDLE, encoding="utf-8")
    e2e_api.server.add(Turn(tool_calls=[ToolCall("mcp__echo__echo", {"text": "through upstream config"})]),
                       when_last_user_contains="echo")
    e2e_api.server.add(Turn(text="echoed."), when_last_tool_result_contains="through upstream config")

    result = e2e_api.run("run", "-P", "upstream-tools", "--approval", "allow", "echo something")

    assert result.returncode == 0, result.stderr
    assert result.stdout == "echoed.\n"
    assert "mcp__echo__echo" in e2e_api.server.requests[0].tool_names
    seen = json.loads((e2e_api.project / "seen.json").read_text())
    assert seen["tool_name"] == "mcp__echo__echo" and seen["tool_input"] == {"text": "through upstream config"}
    assert seen["hook_event_name"] == "PreToolUse" and seen["timestamp"].endswith("Z")
