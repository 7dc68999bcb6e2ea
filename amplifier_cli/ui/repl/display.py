"""The app's DisplaySystem in the chat: a hook's `user_message` on its own line with level and source."""

from __future__ import annotations

from .output import say_parts

_MARKS = {"info": ("info", "ℹ"), "warning": ("warning", "⚠"), "error": ("error", "✗")}


class ReplDisplay:
    def show_message(self, message: str, level: str = "info", source: str = "hook") -> None:
        style, mark = _MARKS.get(level, ("info", "•"))
        say_parts((style, f"{mark} {level.upper()} "), (None, message), ("dim", f"  ({source})"))
