"""The lines `amplifier session cleanup` shows for the sessions it is about to delete."""

from __future__ import annotations

from ..sessions.store import SessionMetadata


def cleanup_lines(sessions: list[SessionMetadata], *, show_project: bool) -> list[str]:
    """One line per session `session cleanup` is about to delete: id, last update, turns, first prompt."""
    lines = []
    for meta in sessions:
        prompt = (meta.first_prompt or "(no message)").replace("\n", " ")[:50]
        project = f"  {meta.project}" if show_project else ""
        lines.append(f"{meta.session_id[:8]}  {meta.updated[:16]}  {meta.turn_count} turn(s){project}  {prompt}")
    return lines
