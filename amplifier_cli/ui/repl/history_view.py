"""The last messages of a resumed session, compact: who said what (first lines), tool calls and results."""

from __future__ import annotations

import json
from typing import Any

from .output import say, say_parts

MAX_LINES = 4


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif isinstance(block, dict) and block.get("type") == "image":
            parts.append(f"[image: {(block.get('source') or {}).get('media_type', 'image')}]")
    return "\n".join(parts)


def _clip(text: str, lines: int = MAX_LINES, width: int = 160) -> list[str]:
    rows = text.strip().splitlines() or [""]
    shown = [row if len(row) <= width else row[: width - 1] + "…" for row in rows[:lines]]
    if len(rows) > lines:
        shown.append(f"… ({len(rows) - lines} more lines)")
    return shown


def _arguments(arguments: Any) -> str:
    text = json.dumps(arguments, ensure_ascii=False, default=str) if not isinstance(arguments, str) else arguments
    return text if len(text) <= 100 else text[:99] + "…"


def show_history(messages: list[dict[str, Any]], session_id: str, last: int = 10) -> None:
    visible = [message for message in messages if message.get("role") in ("user", "assistant", "tool")]
    shown = visible[-last:]
    hidden = len(visible) - len(shown)
    say(f"Resumed session {session_id[:8]} — {len(visible)} messages"
        + (f", last {len(shown)} shown" if hidden else ""), "title")
    for message in shown:
        role = message.get("role")
        if role == "user":
            rows = _clip(_text_of(message.get("content")))
            say_parts(("ansigreen bold", "you ▸ "), (None, rows[0]))
            for row in rows[1:]:
                say(f"      {row}")
        elif role == "assistant":
            text = _text_of(message.get("content"))
            if text.strip():
                for row in _clip(text):
                    say(row)
            for call in message.get("tool_calls") or []:
                say(f"⏺ {call.get('tool') or call.get('name')}({_arguments(call.get('arguments'))})", "info")
        else:
            rows = _clip(_text_of(message.get("content", "")), lines=1)
            say(f"  ⎿ {message.get('name') or 'tool'}: {rows[0]}", "dim")
    say("─" * 40, "dim")
