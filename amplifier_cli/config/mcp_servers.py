"""MCP server definitions in the files tool-mcp reads, by scope: ``upstream`` (upstream Amplifier's
``~/.amplifier/mcp.json``), ``user`` (``<config dir>/mcp.json``), ``project`` (``.amplifier/mcp.json``), ``shared``
(``.mcp.json``, the file other agents read too) and ``env`` (the file ``$AMPLIFIER_MCP_CONFIG`` names).

Later scopes win by server name, in that order (amplifier_support.mcp_scopes, which tool-mcp reads with too);
``add`` writes the user, project or shared file only. Files keep the ``{"mcpServers": {...}}`` shape and
whatever else they hold; values are written as given, so ``${VAR}`` references stay references.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from amplifier_support.mcp_scopes import (
    CONFIG_FILE_VARIABLE,
    SCOPES,
    SERVER_NAME,
    McpFileError,
    McpScope,
    read_servers_document,
    scope_file,
    scope_files,
)

from ..errors import ConfigError, UsageError
from .paths import AmplifierPaths

__all__ = ["CONFIG_FILE_VARIABLE", "SCOPES", "SERVER_NAME", "McpScope", "McpServerEntry"]


@dataclass(frozen=True)
class McpServerEntry:
    name: str
    scope: McpScope
    file: Path
    spec: dict[str, Any]
    active: bool  # False when a later scope defines the same name

    @property
    def transport(self) -> str:
        if self.spec.get("command"):
            return "stdio"
        kind = self.spec.get("type") or self.spec.get("transport")  # transport: upstream's spelling
        http = {"http": "http", "streamable-http": "http", "streamable_http": "http", "streamablehttp": "http"}
        return {"sse": "sse", **http}.get(kind or "", "http (or sse)")

    @property
    def target(self) -> str:
        if self.spec.get("command"):
            return " ".join([str(self.spec["command"]), *(str(arg) for arg in self.spec.get("args") or [])])
        return str(self.spec.get("url", ""))


def _places(paths: AmplifierPaths) -> dict[str, Any]:
    return {"home": Path.home(), "config_dir": paths.config_dir, "project_root": paths.project_root,
            "config_file": os.environ.get(CONFIG_FILE_VARIABLE)}


def mcp_file(paths: AmplifierPaths, scope: McpScope) -> Path:
    path = scope_file(scope, **_places(paths))
    if path is not None:
        return path
    if scope == "env":
        raise UsageError.single(f"{CONFIG_FILE_VARIABLE} is not set", fix="use --global, --project or --shared")
    raise UsageError.single(f"there is no project here for the {scope} scope",
                            fix="run it inside a project, or use --global")


def _read_document(path: Path) -> dict[str, Any]:
    try:
        return read_servers_document(path)[0]
    except McpFileError as error:
        raise ConfigError.single(error.message, file=path, line=error.line, fix=error.fix) from None


def _servers_key(document: dict[str, Any]) -> str:
    from amplifier_support.mcp_scopes import SERVERS_KEYS

    return next((key for key in SERVERS_KEYS if key in document), SERVERS_KEYS[0])


def _servers_of(path: Path, document: dict[str, Any]) -> dict[str, Any]:
    key = _servers_key(document)
    servers = document.get(key) or {}
    if not isinstance(servers, dict):
        raise ConfigError.single("must map server names to servers", file=path, key_path=key,
                                 fix='write {"mcpServers": {"NAME": {"command": "..."}}}')
    return servers


def _read_scopes(paths: AmplifierPaths) -> list[tuple[McpScope, Path]]:
    """The scopes that have a file here, each file once (at its later place, as tool-mcp reads it)."""
    return scope_files(**_places(paths))


def list_servers(paths: AmplifierPaths) -> list[McpServerEntry]:
    """Every definition in every scope's file, the ones a later scope overrides marked inactive."""
    found: list[tuple[str, McpScope, Path, dict[str, Any]]] = []
    for scope, path in _read_scopes(paths):
        for name, spec in _servers_of(path, _read_document(path)).items():
            found.append((name, scope, path, spec if isinstance(spec, dict) else {}))
    winner = {name: index for index, (name, *_rest) in enumerate(found)}
    return [McpServerEntry(name, scope, path, spec, winner[name] == index)
            for index, (name, scope, path, spec) in enumerate(found)]


def find_server(paths: AmplifierPaths, name: str) -> McpServerEntry:
    """The definition tool-mcp would use for NAME (a profile's `servers:` config may still override it)."""
    for entry in list_servers(paths):
        if entry.name == name and entry.active:
            return entry
    raise UsageError.single(f"no MCP server named '{name}' in {', '.join(_scope_files(paths))}",
                            fix="see `amplifier mcp list`, or add it with `amplifier mcp add`")


def _scope_files(paths: AmplifierPaths) -> list[str]:
    return [str(path) for _scope, path in _read_scopes(paths)]


def _write_document(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    temporary.replace(path)


def server_spec(target: list[str], *, transport: str | None, env: dict[str, str],
                headers: dict[str, str]) -> dict[str, Any]:
    """The JSON of a server from `amplifier mcp add` arguments: a URL, or a command and its arguments."""
    if not target:
        raise UsageError.single("give the server's command (and arguments) or its URL",
                                fix="amplifier mcp add NAME -- COMMAND ARGS...  or  amplifier mcp add NAME URL")
    is_url = target[0].startswith(("http://", "https://"))
    kind = transport or ("http" if is_url else "stdio")
    if kind not in ("stdio", "http", "sse"):
        raise UsageError.single(f"unknown transport '{kind}'", fix="use --transport stdio, http or sse")
    if kind == "stdio":
        if is_url or headers:
            raise UsageError.single("a stdio server is a command, not a URL (and has no headers)",
                                    fix="give a command, or --transport http/sse with a URL")
        spec: dict[str, Any] = {"command": target[0], "args": target[1:]}
        if env:
            spec["env"] = env
        return spec
    if not is_url or len(target) > 1 or env:
        raise UsageError.single(f"a {kind} server is one http(s) URL (and has headers, not env)",
                                fix=f"amplifier mcp add NAME --transport {kind} https://host/path")
    spec = {"type": kind, "url": target[0]}
    if headers:
        spec["headers"] = headers
    return spec


def add_server(paths: AmplifierPaths, scope: McpScope, name: str, spec: dict[str, Any]) -> Path:
    if not SERVER_NAME.match(name):
        raise UsageError.single(f"'{name}' is not a valid server name", fix="use letters, digits, '-' and '_'")
    path = mcp_file(paths, scope)
    document = _read_document(path)
    servers = _servers_of(path, document)
    servers[name] = spec
    document[_servers_key(document)] = servers
    _write_document(path, document)
    return path


def remove_server(paths: AmplifierPaths, name: str, scope: McpScope | None) -> Path:
    """Remove NAME from the given scope's file, or from the one file that defines it."""
    defined = [entry for entry in list_servers(paths) if entry.name == name]
    if scope is not None:
        defined = [entry for entry in defined if entry.scope == scope]
    if not defined:
        where = str(mcp_file(paths, scope)) if scope else ", ".join(_scope_files(paths))
        raise UsageError.single(f"no MCP server named '{name}' in {where}", fix="see `amplifier mcp list`")
    if len(defined) > 1:
        scopes = ", ".join(entry.scope for entry in defined)
        raise UsageError.single(f"'{name}' is defined in several scopes ({scopes})",
                                fix="say which: --global, --project or --shared")
    entry = defined[0]
    document = _read_document(entry.file)
    servers = _servers_of(entry.file, document)
    servers.pop(name, None)
    document[_servers_key(document)] = servers
    _write_document(entry.file, document)
    return entry.file
