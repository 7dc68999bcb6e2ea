"""Where server definitions come from and how they merge; ${VAR} expansion happens at connect time only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from amplifier_module_tool_mcp.env_refs import UnsetVariable, expand
from amplifier_module_tool_mcp.server_specs import merged_servers, server_files

from amplifier_core.module_config import ModuleConfigError


def _write(path: Path, document: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")


def test_later_sources_win_by_name_in_the_documented_order(tmp_path: Path) -> None:
    config_dir, project = tmp_path / "config", tmp_path / "project"
    _write(config_dir / "mcp.json", {"mcpServers": {
        "a": {"command": "user-a"}, "b": {"command": "user-b"}, "c": {"command": "user-c"},
        "d": {"command": "user-d"}}})
    _write(project / ".amplifier" / "mcp.json", {"mcpServers": {"b": {"command": "amp-b"}, "c": {"command": "amp-c"}}})
    _write(project / ".mcp.json", {"mcpServers": {"c": {"url": "http://127.0.0.1:1/mcp", "type": "http"}}})
    files = server_files(config_dir, project)
    merged = merged_servers(files, {"d": {"command": "module-d", "args": ["--x"]}})

    assert {name: d.spec.command or d.spec.url for name, d in merged.items()} == {
        "a": "user-a", "b": "amp-b", "c": "http://127.0.0.1:1/mcp", "d": "module-d"}
    assert merged["c"].origin == str(project / ".mcp.json")
    assert merged["c"].spec.transport == "http"
    assert merged["d"].origin == "tool-mcp config"


def test_a_later_file_can_disable_a_server_and_unknown_keys_of_other_agents_are_ignored(tmp_path: Path) -> None:
    _write(tmp_path / "config" / "mcp.json", {"mcpServers": {"time": {"command": "t", "alwaysAllow": ["x"]}}})
    _write(tmp_path / "p" / ".mcp.json", {"mcpServers": {"time": {"disabled": True}}})
    assert merged_servers(server_files(tmp_path / "config", tmp_path / "p"), None) == {}


def test_transport_is_chosen_from_command_type_and_url(tmp_path: Path) -> None:
    merged = merged_servers([], {
        "s": {"command": "x"}, "h": {"url": "http://h/mcp", "type": "http"},
        "e": {"url": "http://h/sse", "type": "sse"}, "u": {"url": "http://h/"}})
    transports = {name: d.spec.transport for name, d in merged.items()}
    assert transports == {"s": "stdio", "h": "http", "e": "sse", "u": "auto"}


@pytest.mark.parametrize(("document", "expected"), [
    ("{not json", "line 1 column 2: invalid JSON"),
    ({"mcpServers": []}, "'mcpServers': must be a mapping of server name to server"),
    ({"mcpServers": {"x": {"args": ["a"]}}}, "'mcpServers.x'"),
    ({"mcpServers": {"x": {"command": "a", "url": "http://b"}}}, "either 'command'"),
    ({"mcpServers": {"bad name": {"command": "a"}}}, "'mcpServers.bad name': server names use letters"),
])
def test_a_broken_file_is_one_message_naming_the_file_and_key(tmp_path: Path, document: object,
                                                                expected: str) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document), encoding="utf-8")
    with pytest.raises(ModuleConfigError) as caught:
        merged_servers([path], None)
    assert str(path) in str(caught.value)
    assert expected in str(caught.value)


def test_module_config_rejects_unknown_server_keys() -> None:
    with pytest.raises(ModuleConfigError, match=r"unknown key 'comand'.*did you mean 'command'"):
        merged_servers([], {"x": {"comand": "a"}})


def test_references_expand_with_defaults_and_unset_ones_are_named() -> None:
    environ = {"TOKEN": "secret", "EMPTY": ""}
    assert expand({"h": "Bearer ${TOKEN}", "l": ["${MISSING:-fallback}", "${EMPTY:-d}", "${EMPTY}"]}, environ) == {
        "h": "Bearer secret", "l": ["fallback", "d", ""]}
    with pytest.raises(UnsetVariable, match=r"\$\{NOPE\} is not set"):
        expand("x ${NOPE}", environ)


def test_oauth_settings_apply_to_http_servers_without_their_own_authorization_header() -> None:
    merged = merged_servers([], {
        "plain": {"url": "https://a/mcp"},
        "own_token": {"url": "https://b/mcp", "headers": {"authorization": "Bearer x"}},
        "off": {"url": "https://c/mcp", "oauth": False},
        "registered": {"url": "https://d/mcp", "oauth": {"client_id": "${ID}", "scope": "read"}},
        "local": {"command": "t"},
    })
    assert merged["plain"].spec.oauth_options is not None
    assert merged["own_token"].spec.oauth_options is None
    assert merged["off"].spec.oauth_options is None
    assert merged["registered"].spec.oauth_options.client_id == "${ID}"  # expanded only when connecting
    assert merged["local"].spec.oauth_options is None


def test_a_bad_oauth_entry_names_the_server_and_key() -> None:
    with pytest.raises(ModuleConfigError) as caught:
        merged_servers([], {"docs": {"url": "https://a/mcp", "oauth": {"client_idd": "x"}}})
    assert "tool-mcp config: 'servers.docs" in str(caught.value) and "client_idd" in str(caught.value)
    with pytest.raises(ModuleConfigError) as caught:
        merged_servers([], {"local": {"command": "t", "oauth": {"client_id": "x"}}})
    assert "'oauth' is for HTTP servers" in str(caught.value)
