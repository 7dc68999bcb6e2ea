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
            text = content if isinstance(content, str) else "\n".join(
                str(block.get("text", "")) if block.get("type") == "text" else _image_note(block)
                for block in content or [] if isinstance(block, dict))
            lines += ["", f"### Result of {message.get('name') or 'tool'}", "", "```", text, "```"]
            continue
        lines += ["", f"## {'You' if role == 'user' else str(role).capitalize()}", ""]
        if isinstance(content, str):
            lines.append(content)
            continue
        for block in content or []:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "text":
                lines.append(str(block.get("text", "")))
            elif kind == "image":
                lines.append(_image_note(block))
            elif kind == "thinking":
                lines += ["<details><summary>thinking</summary>", "", str(block.get("thinking", "")), "",
                          "</details>"]
            elif kind == "tool_call":
                arguments = json.dumps(block.get("input", block.get("arguments", {})), indent=2, ensure_ascii=False)
                lines += ["", f"### Tool call: {block.get('name')}", "", "```json", arguments, "```"]
    return "\n".join(lines) + "\n"


def _image_note(block: dict[str, Any]) -> str:
    """An image in the export: its type, not its bytes (the transcript keeps those)."""
    return f"[image: {(block.get('source') or {}).get('media_type', 'image')}]"


class SaveRefused(ValueError):
    """The path given to /save would need folders created outside the places /save may create them."""


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def _make_parent(path: Path, roots: list[Path]) -> None:
    """Create the missing folders above ``path``, but only inside ``roots`` (the project, the user's home): a
    typo like `/save /nonexistent/dir/x.md` must not leave folders at the root of the file system."""
    parent = path.parent
    if parent.is_dir():
        return
    existing = parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    resolved_roots = [root.resolve() for root in roots]
    if not existing.is_dir() or not _inside(existing.resolve(), resolved_roots):
        allowed = " or ".join(str(root) for root in roots)
        raise SaveRefused(f"{parent} does not exist, and /save creates folders only inside {allowed}; "
                          "create it first, or give another path")
    parent.mkdir(parents=True, exist_ok=True)


def save_transcript(path: Path, messages: list[dict[str, Any]], header: dict[str, Any], *, roots: list[Path],
                    overwrite: bool = False) -> Path:
    """Write the export at ``path``. An existing file is replaced only with ``overwrite`` (else FileExistsError,
    so the caller can ask); missing folders are created only inside ``roots`` (else SaveRefused)."""
    _make_parent(path, roots)
    if path.suffix.lower() == ".json":
        text = json.dumps({**header, "messages": messages}, indent=2, ensure_ascii=False, default=str) + "\n"
    else:
        text = _markdown(messages, header)
    # private like the session it comes from (0600 when created; an existing file keeps its mode), and never
    # through a symlink at that name: a command run for the model may have left one pointing at ~/.bashrc
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | (os.O_TRUNC if overwrite else os.O_EXCL)
    try:
        descriptor = os.open(path, flags, 0o600)
    except OSError as error:
        if error.errno == errno.ELOOP or (error.errno == errno.EEXIST and path.is_symlink()):
            raise OSError(errno.ELOOP, "it is a symbolic link (not followed)", str(path)) from None
        raise
    with open(descriptor, "w", encoding="utf-8", errors="surrogateescape") as handle:
        handle.write(text)
    return path
