"""What `amplifier mcp ...` and the REPL's /mcp show: servers by scope, one server's definition, a probe's
result, and the state of a session's servers."""

from __future__ import annotations

from typing import Any

from ..config.mcp_servers import McpScope, McpServerEntry, find_server, list_servers
from ..config.paths import AmplifierPaths
from ..config.trust import project_trusted


def server_rows(paths: AmplifierPaths | None = None) -> list[dict[str, Any]]:
    paths = paths or AmplifierPaths.discover()
    return [_row(entry, paths) for entry in list_servers(paths)]


def _row(entry: McpServerEntry, paths: AmplifierPaths) -> dict[str, Any]:
    """``trusted``: False for a project's server while the user has not trusted the project (it is not started)."""
    trusted = entry.scope not in ("project", "shared") or project_trusted(paths)
    return {"name": entry.name, "scope": entry.scope, "file": str(entry.file), "transport": entry.transport,
            "target": entry.target, "disabled": bool(entry.spec.get("disabled")), "active": entry.active,
            "trusted": trusted, "spec": entry.spec}


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


def session_server_lines(rows: list[dict[str, Any]]) -> list[str]:
    """One line per server of a live session: state, transport, tool and prompt counts, the reason it failed."""
    lines = []
    for row in rows:
        counts = f"{row['tools']} tool(s)" + (f", {row['prompts']} prompt(s)" if row.get("prompts") else "")
        line = f"{row['name']}: {row['state']} ({row['transport']}) · {counts}"
        if row.get("error"):
            line += f" · {row['error']}"
        lines.append(line)
    return lines
