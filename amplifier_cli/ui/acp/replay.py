"""`session/load`: the stored conversation told to the editor again, as the updates it would have seen: user and
agent message chunks, thinking, and each tool call with its result. System messages (the instruction, the
project's AGENTS.md, a compaction summary) are not part of what the person saw, and are not replayed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .tool_calls import EDIT_TOOLS, result_text, tool_kind, tool_locations, tool_path, tool_title


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [block for block in content or [] if isinstance(block, dict)]


def _edit_of(name: str, arguments: dict[str, Any], path: Path | None) -> Any:
    """An edit as a diff from what the call says: the whole new file for write_file, the replaced text for
    edit_file (the file as it was then is not kept)."""
    from acp import tool_diff_content

    if path is None:
        return None
    if name == "write_file" and isinstance(arguments.get("content"), str):
        return [tool_diff_content(str(path), arguments["content"])]
    old, new = arguments.get("old_string"), arguments.get("new_string")
    if name == "edit_file" and isinstance(old, str) and isinstance(new, str):
        return [tool_diff_content(str(path), new, old)]
    return None


def _image(block: dict[str, Any]) -> Any:
    from acp import image_block

    source = block.get("source") or {}
    if source.get("type") != "base64" or not source.get("data"):
        return None
    return image_block(str(source["data"]), str(source.get("media_type") or "image/png"))


def replay_updates(messages: list[dict[str, Any]], cwd: Path) -> Iterator[Any]:
    """The updates for ``messages`` (the transcript's, oldest first)."""
    from acp import (
        start_tool_call,
        text_block,
        tool_content,
        update_agent_message,
        update_agent_message_text,
        update_agent_thought_text,
        update_tool_call,
        update_user_message,
        update_user_message_text,
    )

    for message in messages:
        role = message.get("role")
        if role == "user":
            for block in _blocks(message.get("content")):
                if block.get("type") == "text" and block.get("text"):
                    yield update_user_message_text(str(block["text"]))
                elif block.get("type") == "image" and (image := _image(block)) is not None:
                    yield update_user_message(image)
        elif role == "assistant":
            for block in _blocks(message.get("content")):
                kind = block.get("type")
                if kind == "text" and block.get("text"):
                    yield update_agent_message_text(str(block["text"]))
                elif kind == "thinking" and block.get("thinking"):
                    yield update_agent_thought_text(str(block["thinking"]))
                elif kind == "image" and (image := _image(block)) is not None:
                    yield update_agent_message(image)
                elif kind == "tool_call" and block.get("id"):
                    name = str(block.get("name") or "")
                    given = block.get("input")
                    arguments: dict[str, Any] = given if isinstance(given, dict) else {}
                    path = tool_path(arguments, cwd)
                    yield start_tool_call(str(block["id"]), tool_title(name, arguments, cwd),
                                          kind=tool_kind(name), status="pending",  # type: ignore[arg-type]
                                          raw_input=arguments, locations=tool_locations(path),
                                          content=_edit_of(name, arguments, path))
        elif role == "tool" and message.get("tool_call_id"):
            content = message.get("content")
            text = content if isinstance(content, str) else "\n".join(
                str(block.get("text") or "") for block in _blocks(content) if block.get("type") == "text")
            shown = result_text(text)
            if message.get("name") in EDIT_TOOLS:  # the diff stays what the editor shows of an edit
                shown = ""
            yield update_tool_call(str(message["tool_call_id"]), status="completed",
                                   content=[tool_content(text_block(shown))] if shown else None)

