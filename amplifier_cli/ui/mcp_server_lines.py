"""The lines the chat's `/mcp` shows: one per server of the live session."""

from __future__ import annotations

from typing import Any


def session_server_lines(rows: list[dict[str, Any]]) -> list[str]:
    """One line per server of a live session: state, transport, tool and prompt counts, how it is logged in to
    (OAuth servers), the reason it failed."""
    lines = []
    for row in rows:
        counts = f"{row['tools']} tool(s)" + (f", {row['prompts']} prompt(s)" if row.get("prompts") else "")
        line = f"{row['name']}: {row['state']} ({row['transport']}) · {counts}"
        if row.get("auth"):
            line += f" · {row['auth']}"
        if row.get("error"):
            line += f" · {row['error']}"
        lines.append(line)
    return lines
