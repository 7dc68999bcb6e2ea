"""`module list` reads a module's type with the kernel's one id rule and lists the project's own modules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def _workspace_module(project_dir: Path) -> None:
    package = project_dir / ".amplifier" / "modules" / "tool-local" / "amplifier_module_tool_local"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("async def mount(coordinator, config):\n    return None\n")


def test_hook_shell_is_a_hook_and_type_hook_keeps_it(cli, project_dir) -> None:
    rows = {r["module"]: r for r in json.loads(cli("module", "list", "--json").stdout)}
    assert rows["hook-shell"]["type"] == "hook"
    hooks = {r["module"] for r in json.loads(cli("module", "list", "--type", "hook", "--json").stdout)}
    assert {"hook-shell", "hooks-logging", "hooks-approval"} <= hooks
    assert json.loads(cli("module", "show", "hook-shell", "--json").stdout)["type"] == "hook"


def test_workspace_module_of_a_trusted_project_is_listed(cli, project_dir) -> None:
    _workspace_module(project_dir)
    result = cli("module", "list", "--json")
    rows = {r["module"]: r for r in json.loads(result.stdout)}
    assert rows["tool-local"]["origin"] == "workspace" and rows["tool-local"]["type"] == "tool"
    assert "wait until you trust" not in result.stderr


@pytest.mark.untrusted
def test_workspace_module_of_an_untrusted_project_waits_for_trust(cli, project_dir) -> None:
    _workspace_module(project_dir)
    result = cli("module", "list", "--json")
    assert result.exit_code == 0, result.stderr
    assert "tool-local" not in {r["module"] for r in json.loads(result.stdout)}
    assert "own modules (tool-local) wait until you trust it (`amplifier trust`)" in result.stderr
