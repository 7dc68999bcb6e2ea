"""The receipt of a compaction, one line, from the data of a `context:post_compact` event: the app's
`/compact` and hooks-streaming-ui (showing a context manager's automatic compaction) print the same words.

Keys read (all optional but the counts): `messages_before`, `messages_after`, `tokens_before`, `tokens_after`,
`messages_omitted` (automatic: earlier messages left out of requests), `summary` (what a summary kept),
`trigger` (`manual` for /compact, else automatic).
"""

from __future__ import annotations

from typing import Any

SUMMARY_PREVIEW = 160


def _count(value: Any) -> str:
    return f"{int(value):,}" if isinstance(value, int | float) else "?"


def receipt_line(data: dict[str, Any]) -> str:
    """e.g. `context compacted (automatic): 48 -> 12 messages, ~150,210 -> ~80,400 tokens; 36 earlier messages
    left out of requests (the transcript keeps them)`."""
    trigger = "" if data.get("trigger") == "manual" else " (automatic)"
    messages_before = data.get("messages_before", data.get("message_count"))
    line = (f"context compacted{trigger}: {_count(messages_before)} → {_count(data.get('messages_after'))} "
            f"messages, ~{_count(data.get('tokens_before'))} → ~{_count(data.get('tokens_after'))} tokens")
    omitted = data.get("messages_omitted")
    if isinstance(omitted, int) and omitted > 0:
        line += f"; {omitted} earlier messages left out of requests (the transcript keeps them)"
    summary = " ".join(str(data.get("summary") or "").split())
    if summary:
        preview = summary if len(summary) <= SUMMARY_PREVIEW else summary[:SUMMARY_PREVIEW - 1] + "…"
        line += f"; the summary kept: {preview}"
    return line
