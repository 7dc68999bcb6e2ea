"""`/save [file]`: the conversation as Markdown (default) or JSON (a `.json` file name)."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any


def _markdown(messages: list[dict[str, Any]], header: dict[str, Any]) -> str:
    lines = [f"# Session {header['session_id']}", ""]
    lines += [f"- {key}: {value}" for key, value in header.items() if key != "session_id" and value is not None]
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role == "tool":
            lines += ["", f"### Result of {message.get('name') or 'tool'}", "", "```", str(content), "```"]
            continue
        lines += ["", f"## {'You' if role == 'user' else str(role).capitalize()}", ""]
        if isinstance(content, str):
            lines.append(content)
            continue
        for block in content or []:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                lines.append(str(block.get("text", "")))
            elif kind == "thinking":
                lines += ["<details><summary>thinking</summary>", "", str(block.get("thinking", "")), "",
                          "</details>"]
            elif kind == "tool_call":
                arguments = json.dumps(block.get("input", block.get("arguments", {})), indent=2, ensure_ascii=False)
                lines += ["", f"### Tool call: {block.get('name')}", "", "```json", arguments, "```"]
    return "\n".join(lines) + "\n"


def save_transcript(path: Path, messages: list[dict[str, Any]], header: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".json":
        text = json.dumps({**header, "messages": messages}, indent=2, ensure_ascii=False, default=str) + "\n"
    else:
        text = _markdown(messages, header)
    # private like the session it comes from (0600 when created; an existing file keeps its mode), and never
    # through a symlink at that name: a command run for the model may have left one pointing at ~/.bashrc
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "it is a symbolic link (not followed)", str(path)) from None
        raise
    with open(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path
