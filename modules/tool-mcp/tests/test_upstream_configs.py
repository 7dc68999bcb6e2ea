"""Configs written for upstream Amplifier's tool-mcp work here unchanged: its module config keys
(``max_content_size``, ``verbose_servers``, ``server_log_dir``, ``visibility``), its files (``~/.amplifier/mcp.json``,
``$AMPLIFIER_MCP_CONFIG``, BOM-prefixed JSON) and its server spellings (``transport:``, ``streamablehttp``)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from amplifier_module_tool_mcp import mount
from amplifier_module_tool_mcp.server_specs import merged_servers, server_files
from mcptestserver import stdio_command
from mcptestserver.fixtures import stdio_server_env

from amplifier_core.module_config import ModuleConfigError
from amplifier_core.testing import MockCoordinator


def _write(path: Path, document: object, encoding: str = "utf-8") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding=encoding)


def _stdio(**extra: Any) -> dict[str, Any]:
    command = stdio_command()
    return {"command": command[0], "args": command[1:], "env": stdio_server_env(), **extra}


def _noisy_stdio(line: str) -> dict[str, Any]:
    """A stdio server that writes ``line`` to its stderr before it starts serving."""
    script = f"echo {shlex.quote(line)} >&2; exec {shlex.join(stdio_command())}"
    return {"command": "sh", "args": ["-c", script], "env": stdio_server_env()}


async def _mount(config: dict[str, Any], session_dir: Path, **capabilities: str) -> MockCoordinator:
    coordinator = MockCoordinator()
    coordinator.register_capability("session.dir", str(session_dir))
    for name, value in capabilities.items():
        coordinator.register_capability(name.replace("__", "."), value)
    await mount(coordinator, config)
    return coordinator


async def test_upstream_bundle_config_mounts_and_max_content_size_cuts_results(tmp_path: Path) -> None:
    # As upstream bundles write it (verbose_servers / max_content_size / transport: stdio / visibility).
    config = {"verbose_servers": False, "max_content_size": 1000, "visibility": {"enabled": True},
              "read_config_files": False, "servers": {"local": _stdio(transport="stdio")}}
    coordinator = await _mount(config, tmp_path)
    try:
        big = await coordinator.get("tools")["mcp__local__big"].execute({"size": 3000})
        assert big.output.startswith("x" * 1000 + "\n\n[result cut: 2000 of 3000 characters left out]")
    finally:
        await coordinator.cleanup()


async def test_max_content_size_and_max_result_chars_must_agree(tmp_path: Path) -> None:
    with pytest.raises(ModuleConfigError, match=r"'max_content_size' .* and 'max_result_chars' disagree"):
        await _mount({"max_content_size": 2000, "max_result_chars": 3000}, tmp_path)


async def test_server_log_dir_receives_stdio_servers_stderr(tmp_path: Path) -> None:
    logs = tmp_path / "server-logs"
    coordinator = await _mount({"read_config_files": False, "server_log_dir": str(logs),
                                "servers": {"noisy": _noisy_stdio("noisy server starting")}}, tmp_path / "s")
    try:
        assert coordinator.get_capability("mcp.status")()[0]["log"] == str(logs / "noisy.log")
        assert "noisy server starting" in (logs / "noisy.log").read_text()
        assert not (tmp_path / "s" / "mcp").exists()
    finally:
        await coordinator.cleanup()


@pytest.mark.parametrize("how", ["config", "environment"])
async def test_verbose_servers_shows_stderr_on_the_terminal_instead_of_a_log(
        tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    config: dict[str, Any] = {"read_config_files": False, "servers": {"noisy": _noisy_stdio("loud server starting")}}
    if how == "config":
        config["verbose_servers"] = True
    else:
        monkeypatch.setenv("AMPLIFIER_MCP_VERBOSE", "true")
    coordinator = await _mount(config, tmp_path)
    try:
        assert coordinator.get_capability("mcp.status")()[0]["state"] == "connected"
        assert "loud server starting" in capfd.readouterr().err
        assert not (tmp_path / "mcp" / "noisy.log").exists()
    finally:
        await coordinator.cleanup()


async def test_upstream_user_file_and_mcp_config_variable_are_read_in_upstream_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, config_dir, project = tmp_path / "home", tmp_path / "config", tmp_path / "project"
    monkeypatch.setenv("HOME", str(home))
    _write(home / ".amplifier" / "mcp.json", {"mcpServers": {
        "home-only": _stdio(), "shadowed": {"command": "from-upstream-home"}}})
    _write(config_dir / "mcp.json", {"mcpServers": {"shadowed": _stdio(), "env-wins": {"command": "from-config"}}})
    _write(project / ".mcp.json", {"mcpServers": {"env-wins": {"command": "from-project"}}})
    named = tmp_path / "elsewhere" / "servers.json"
    _write(named, {"mcpServers": {"env-wins": _stdio(), "inline-wins": {"command": "from-variable"}}})
    monkeypatch.setenv("AMPLIFIER_MCP_CONFIG", str(named))
    coordinator = await _mount({"servers": {"inline-wins": _stdio()}}, tmp_path / "session",
                               app__user_config_dir=str(config_dir), session__project_dir=str(project))
    try:
        rows = {row["name"]: row for row in coordinator.get_capability("mcp.status")()}
        assert {name: row["origin"] for name, row in rows.items()} == {
            "home-only": str(home / ".amplifier" / "mcp.json"), "shadowed": str(config_dir / "mcp.json"),
            "env-wins": str(named), "inline-wins": "tool-mcp config"}
        assert all(row["state"] == "connected" for row in rows.values())
        assert "mcp__home-only__echo" in coordinator.get("tools")
    finally:
        await coordinator.cleanup()


async def test_read_upstream_files_false_ignores_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    _write(tmp_path / ".amplifier" / "mcp.json", {"mcpServers": {"x": {"command": "nope"}}})
    monkeypatch.setenv("AMPLIFIER_MCP_CONFIG", str(tmp_path / ".amplifier" / "mcp.json"))
    coordinator = await _mount({"read_upstream_files": False, "project_dir": str(tmp_path / "p")}, tmp_path)
    assert coordinator.get_capability("mcp.status")() == []


def test_a_file_read_twice_counts_once_at_its_highest_place(tmp_path: Path) -> None:
    # The home dir as the project: ~/.amplifier/mcp.json is both upstream's user file and the project file.
    files = server_files(tmp_path / "config", tmp_path, home=tmp_path, config_file=None)
    assert files == [tmp_path / "config" / "mcp.json", tmp_path / ".amplifier" / "mcp.json", tmp_path / ".mcp.json"]


def test_a_windows_saved_file_with_a_bom_is_read(tmp_path: Path) -> None:
    path = tmp_path / ".amplifier" / "mcp.json"
    _write(path, {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}, encoding="utf-8-sig")
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    assert merged_servers([path], None)["time"].spec.command == "uvx"


def test_upstream_transport_spellings_are_accepted() -> None:
    merged = merged_servers([], {
        "a": {"command": "x", "transport": "stdio"},
        "b": {"url": "http://h/mcp", "transport": "streamable-http"},
        "c": {"url": "http://h/mcp", "type": "streamablehttp"},
        "d": {"url": "http://h/sse", "transport": "sse", "type": "sse"}})
    assert {name: d.spec.transport for name, d in merged.items()} == {"a": "stdio", "b": "http", "c": "http",
                                                                      "d": "sse"}


def test_transport_and_type_that_disagree_are_one_clear_error() -> None:
    with pytest.raises(ModuleConfigError, match=r"'servers.x'.*'transport' \('sse'\) and 'type' \('http'\) disagree"):
        merged_servers([], {"x": {"url": "http://h/mcp", "transport": "sse", "type": "http"}})


async def test_streamablehttp_type_connects_to_a_real_http_server(mcp_http_server: str, tmp_path: Path) -> None:
    coordinator = await _mount({"read_config_files": False, "servers": {
        "remote": {"type": "streamablehttp", "url": mcp_http_server}}}, tmp_path)
    try:
        assert (await coordinator.get("tools")["mcp__remote__echo"].execute({"text": "hi"})).output == "echo: hi"
    finally:
        await coordinator.cleanup()


def test_numbers_and_booleans_in_args_env_and_headers_become_text() -> None:
    spec = merged_servers([], {"s": {"command": "x", "args": ["--port", 8080], "env": {"DEBUG": True, "N": 1.5}},
                               "h": {"url": "http://h/mcp", "headers": {"X-Retries": 3}}})
    assert spec["s"].spec.args == ["--port", "8080"] and spec["s"].spec.env == {"DEBUG": "true", "N": "1.5"}
    assert spec["h"].spec.headers == {"X-Retries": "3"}
