"""MCP server files by scope, written once: tool-mcp reads the files `amplifier mcp list` shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from amplifier_support.mcp_scopes import McpFileError, read_servers_document, scope_files


def test_a_file_two_scopes_name_is_read_once_at_its_later_place(tmp_path: Path) -> None:
    files = scope_files(home=tmp_path, config_dir=tmp_path / "config", project_root=tmp_path, config_file=None)
    assert files == [("user", tmp_path / "config" / "mcp.json"), ("project", tmp_path / ".amplifier" / "mcp.json"),
                     ("shared", tmp_path / ".mcp.json")]  # upstream's ~/.amplifier/mcp.json is the project's


def test_the_app_and_tool_mcp_read_the_same_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from amplifier_module_tool_mcp.server_specs import server_files

    from amplifier_cli.config.mcp_servers import _read_scopes
    from amplifier_cli.config.paths import AmplifierPaths

    project = tmp_path / "project"
    (project / ".amplifier").mkdir(parents=True)
    monkeypatch.setenv("AMPLIFIER_MCP_CONFIG", str(tmp_path / "extra.json"))
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: tmp_path))
    paths = AmplifierPaths.discover(cwd=project)
    app_files = [path for _scope, path in _read_scopes(paths)]
    module_files = server_files(paths.config_dir, paths.project_root, home=tmp_path,
                                config_file=str(tmp_path / "extra.json"))
    assert app_files == module_files and app_files[-1] == tmp_path / "extra.json"


def test_a_broken_file_says_where(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    assert read_servers_document(path) == ({}, "mcpServers")
    path.write_text('{"servers": {}}')
    assert read_servers_document(path) == ({"servers": {}}, "servers")
    path.write_text("{not json")
    with pytest.raises(McpFileError) as broken:
        read_servers_document(path)
    assert (broken.value.line, broken.value.part) == (1, "(json)") and str(path) in str(broken.value)
    path.write_text("[]")
    with pytest.raises(McpFileError, match="must be a JSON object"):
        read_servers_document(path)


def test_the_sandboxs_stand_in_for_a_missing_mcp_json_reads_as_no_file(tmp_path) -> None:
    from amplifier_support.mcp_scopes import read_servers_document

    stand_in = tmp_path / ".mcp.json"
    stand_in.touch(mode=0o000)
    assert read_servers_document(stand_in) == ({}, "mcpServers")
