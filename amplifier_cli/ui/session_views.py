"""What `amplifier session list/show` print, computed from the store (no command formatting here)."""

from __future__ import annotations

from typing import Any

from ..sessions.store import SessionMetadata, SessionRecord


def summary_row(meta: SessionMetadata) -> dict[str, Any]:
    return {
        "session_id": meta.session_id,
        "updated": meta.updated,
        "profile": meta.profile,
        "model": meta.model,
        "turns": meta.turn_count,
        "status": meta.status,
        "project": meta.project,
        "parent_id": meta.parent_id,
        "first_prompt": meta.first_prompt,
    }


def cleanup_lines(sessions: list[SessionMetadata], *, show_project: bool) -> list[str]:
    """One line per session `session cleanup` is about to delete: id, last update, turns, first prompt."""
    lines = []
    for meta in sessions:
        prompt = (meta.first_prompt or "(no message)").replace("\n", " ")[:50]
        project = f"  {meta.project}" if show_project else ""
        lines.append(f"{meta.session_id[:8]}  {meta.updated[:16]}  {meta.turn_count} turn(s){project}  {prompt}")
    return lines


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict):
            if block.get("type") == "text":
                parts.append(block.get("text", ""))
            elif block.get("type") == "tool_call":
                parts.append(f"[tool call {block.get('name')}]")
            elif block.get("type") == "image":
                parts.append(f"[image: {(block.get('source') or {}).get('media_type', 'image')}]")
    return " ".join(parts)


def session_detail(record: SessionRecord, children: list[SessionMetadata], last: int = 6) -> dict[str, Any]:
    read = record.read_transcript()
    counts: dict[str, int] = {}
    for message in read.messages:
        counts[message.get("role", "?")] = counts.get(message.get("role", "?"), 0) + 1
    recent = [{"role": message.get("role"), "text": _message_text(message)[:300]} for message in read.messages[-last:]]
    return {
        "metadata": record.metadata.model_dump(mode="json"),
        "directory": str(record.directory),
        "message_counts": counts,
        "recent_messages": recent,
        "children": [child.session_id for child in children],
        "warnings": read.warnings,
    }
