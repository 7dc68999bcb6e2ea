"""What `amplifier session list|show` report about a stored session, computed from the store."""

from __future__ import annotations

from typing import Any

from .store import SessionMetadata, SessionRecord, is_compact_boundary


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
        "compactions": sum(map(is_compact_boundary, read.messages)),
        "recent_messages": recent,
        "children": [child.session_id for child in children],
        "warnings": read.warnings,
    }
