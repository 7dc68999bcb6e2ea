"""The MCP servers of the settings files as `amplifier mcp list|get` report them: by scope, each with whether it
is trusted to start."""

from __future__ import annotations

from typing import Any

from .mcp_servers import McpScope, McpServerEntry, find_server, list_servers
from .paths import AmplifierPaths
from .trust import project_trusted


def server_rows(paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    paths = paths or AmplifierPaths.discover()
    return [_row(entry, paths) for entry in list_servers(paths)]


def _row(entry: McpServerEntry, paths: AmplifierPaths) -> dict[str, Any]:
    """``trusted``: False for a project's server while the user has not trusted the project (it is not started)."""
    trusted = entry.scope not in ("project", "shared") or project_trusted(paths)
    return {"name": entry.name, "scope": entry.scope, "file": str(entry.file), "transport": entry.transport,
            "target": entry.target, "disabled": bool(entry.spec.get("disabled")), "active": entry.active,
            "trusted": trusted, "auth": auth_state(entry, paths), "spec": entry.spec}


def auth_state(entry: McpServerEntry, paths: AmplifierPaths) -> str:
    """How the server is logged in to: ``-`` (stdio), ``header`` (the entry's own Authorization header),
    ``oauth off``, or what the key store holds for its name and URL (OAuth starts on the server's first 401)."""
    import time

    from .mcp_oauth_store import McpOAuthStore, auth_summary

    url = entry.spec.get("url")
    if not isinstance(url, str) or entry.spec.get("command"):
        return "-"
    if any(str(key).lower() == "authorization" for key in entry.spec.get("headers") or {}):
        return "header"
    if entry.spec.get("oauth") is False:
        return "oauth off"
    return auth_summary(McpOAuthStore(paths).load(entry.name, _expanded(url)), time.time())


def _expanded(url: str) -> str:
    """The URL a session connects to (``${VAR}`` and ``${VAR:-default}`` from the environment), as records are
    keyed by it."""
    import os
    import re

    def value(match: re.Match[str]) -> str:
        name, _, default = match.group(1).partition(":-")
        return os.environ.get(name) or default

    return re.sub(r"\$\{([^}]+)\}", value, url)


def server_definition(name: str, paths: AmplifierPaths | None = None) -> dict[str, Any]:
    paths = paths or AmplifierPaths.discover()
    return _row(find_server(paths, name), paths)


def scope_from_flags(global_: bool, project: bool, shared: bool) -> McpScope | None:
    from ..errors import UsageError

    flags: tuple[tuple[McpScope, bool], ...] = (("user", global_), ("project", project), ("shared", shared))
    chosen: list[McpScope] = [scope for scope, flag in flags if flag]
    if len(chosen) > 1:
        raise UsageError.single("choose only one of --global, --project, --shared")
    return chosen[0] if chosen else None
