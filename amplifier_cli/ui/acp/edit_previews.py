"""The diffs the editor shows for file edits: worked out from the call when it is about to run (so the approval
question can show it) and kept until the call ends. The old text is the file as the user sees it now: the editor's
buffer when the editor offers reading, else the disk; only inside the session's directory (a diff never shows what
the file tools would refuse to read) and only for files small enough to show."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

PREVIEW_LIMIT = 1024 * 1024  # a file larger than this gets no diff in the editor

ReadInEditor = Callable[[Path], Awaitable[str]]


class EditPreviews:
    def __init__(self, cwd: Path, read_in_editor: ReadInEditor | None) -> None:
        self.cwd = cwd
        self.read_in_editor = read_in_editor
        self._edits: dict[str, tuple[str, str | None, str]] = {}  # call id -> (path, old text, new text)

    async def propose(self, call_id: str, name: str, arguments: dict[str, Any], path: Path) -> Any:
        """The diff ``name`` (write_file or edit_file) would make, as tool call content; None when unknown."""
        old = await self._current_text(path)
        if name == "write_file":
            new = arguments.get("content")
        else:
            before, after = arguments.get("old_string"), arguments.get("new_string")
            if old is None or not isinstance(before, str) or not isinstance(after, str) or before not in old:
                return None
            new = old.replace(before, after) if arguments.get("replace_all") else old.replace(before, after, 1)
        if not isinstance(new, str):
            return None
        self._edits[call_id] = (str(path), old, new)
        return self.diff_of(call_id)

    def diff_of(self, call_id: str) -> Any:
        from acp import tool_diff_content

        edit = self._edits.get(call_id)
        return [tool_diff_content(edit[0], edit[2], edit[1])] if edit is not None else None

    def forget(self, call_id: str | None = None) -> None:
        """Drop one call's preview (it ended), or all of them (the turn ended)."""
        if call_id is None:
            self._edits.clear()
        else:
            self._edits.pop(call_id, None)

    async def _current_text(self, path: Path) -> str | None:
        try:
            if not path.resolve().is_relative_to(self.cwd.resolve()):
                return None
            if not path.is_file() or path.stat().st_size > PREVIEW_LIMIT:
                return None
            if self.read_in_editor is not None:
                return await self.read_in_editor(path)
            return await asyncio.to_thread(path.read_text, encoding="utf-8")
        except Exception:  # no preview is no failure: the tool itself reports what is wrong
            return None
