"""Writes to the places that decide what the next session trusts (`.amplifier/`, `.mcp.json`, git hooks and
config) need a person: refused when the app says nobody answers approvals, allowed when hooks-approval asked one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from amplifier_module_tool_filesystem import FilesystemConfig, build_tools

PLACES = (".amplifier/settings.yaml", ".mcp.json", ".git/hooks/post-checkout", ".git/config", "sub/../.mcp.json")


def _tools(project: Path, capabilities: dict[str, Any]) -> dict:
    known = {"session.working_dir": str(project), "session.project_dir": str(project), **capabilities}

    class Coordinator:
        hooks = None

        def get_capability(self, name: str) -> Any:
            return known.get(name)

    return {tool.name: tool for tool in build_tools(FilesystemConfig(), Coordinator())}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / ".git" / "config").write_text("[core]\n")
    (tmp_path / "sub").mkdir()
    return tmp_path


@pytest.mark.parametrize("interactive", [None, False])
@pytest.mark.parametrize("place", PLACES)
async def test_writes_to_protected_places_are_refused_when_nobody_can_approve(project, place, interactive) -> None:
    tools = _tools(project, {"approval.interactive": interactive})
    result = await tools["write_file"].execute({"file_path": place, "content": "planted\n"})
    assert not result.success
    assert "later sessions trust" in result.error["message"]
    assert not (project / ".mcp.json").exists() and not (project / ".amplifier").exists()
    assert (project / ".git" / "config").read_text() == "[core]\n"
    assert list((project / ".git" / "hooks").iterdir()) == []


async def test_an_edit_of_git_config_is_refused_headless(project) -> None:
    tools = _tools(project, {})
    result = await tools["edit_file"].execute({"file_path": ".git/config", "old_string": "[core]",
                                               "new_string": "[core]\n\thooksPath = /tmp/evil"})
    assert not result.success and (project / ".git" / "config").read_text() == "[core]\n"


async def test_with_a_person_answering_approvals_the_write_goes_through(project) -> None:
    tools = _tools(project, {"approval.interactive": True})
    result = await tools["write_file"].execute({"file_path": ".mcp.json", "content": "{}\n"})
    assert result.success and (project / ".mcp.json").read_text() == "{}\n"


async def test_ordinary_files_are_not_affected(project) -> None:
    tools = _tools(project, {})
    assert (await tools["write_file"].execute({"file_path": "notes/.amplifier-notes", "content": "x"})).success
