"""Forking a stored session: a new session (own id and directory) whose transcript is a copy of the original's,
whole or up to a turn, with `forked_from` (and `forked_at_turn`) in its metadata. The original is only read:
neither its files nor its lock (`.lock`) are copied or touched, so forking a session another process has open
is safe."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .store import SessionRecord, SessionStore
from .transcript import is_compact_boundary


def is_user_prompt(message: dict[str, Any]) -> bool:
    """A message the user typed (a turn starts here), not a tool result carried in a user message."""
    if message.get("role") != "user":
        return False
    content = message.get("content")
    if isinstance(content, list):
        return not any(isinstance(block, dict) and block.get("type") == "tool_result" for block in content)
    return True


def turn_starts(messages: list[dict[str, Any]]) -> list[int]:
    """Index of the first message of each turn (its user prompt)."""
    return [index for index, message in enumerate(messages) if is_user_prompt(message)]


def messages_up_to_turn(messages: list[dict[str, Any]], turn: int | None) -> list[dict[str, Any]]:
    """The messages of turns 1..``turn`` (all with None); ValueError when the session has fewer turns."""
    starts = turn_starts(messages)
    if turn is None:
        return list(messages)
    if turn < 1 or turn > len(starts):
        raise ValueError(f"turn {turn} is not in the session: it has {len(starts)} turn(s)")
    end = starts[turn] if turn < len(starts) else len(messages)
    return _without_trailing_compaction(list(messages[:end]))


def _without_trailing_compaction(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A compaction made after the last kept turn (its boundary and the system messages after it) is left out:
    a fork or rewind to that turn continues from the whole conversation, not from the summary of it."""
    for index in range(len(messages) - 1, -1, -1):
        if is_compact_boundary(messages[index]):
            return messages[:index] if all(m.get("role") == "system" for m in messages[index:]) else messages
    return messages


def _prompt_text(message: dict[str, Any]) -> str | None:
    content = message.get("content")
    if isinstance(content, str):
        return content[:200]
    if isinstance(content, list):
        texts = [block.get("text", "") for block in content if isinstance(block, dict) and block.get("type") == "text"]
        return " ".join(texts)[:200] or None
    return None


def fork_session(store: SessionStore, source: SessionRecord, *, at_turn: int | None = None,
                 cwd: Path | None = None) -> SessionRecord:
    """Create the fork and return it closed (unlocked), ready to be resumed like any session."""
    messages = messages_up_to_turn(source.read_transcript().messages, at_turn)
    prompts = [message for message in messages if is_user_prompt(message)]
    meta = source.metadata
    fields: dict[str, Any] = {
        "profile": meta.profile, "provider": meta.provider, "model": meta.model,
        "provider_selected": meta.provider_selected, "model_selected": meta.model_selected,
        "forked_from": meta.session_id, "forked_at_turn": at_turn if at_turn is not None else len(prompts),
    }
    record = store.create(cwd=cwd or Path(meta.cwd), project=Path(meta.project), **fields)
    try:
        record.writer.rewrite(messages)
        record.save_metadata(turn_count=len(prompts), status="completed",
                             first_prompt=_prompt_text(prompts[0]) if prompts else meta.first_prompt)
    except BaseException:
        record.close()
        store.delete(record.session_id)
        raise
    record.created_here = False  # kept even when it holds no prompt yet: the user asked for it
    record.close()
    return record
