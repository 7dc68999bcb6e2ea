"""`amplifier notify desktop on`: when a chat turn ends, ring the terminal bell and send OSC 9 (the escape
sequence iTerm2, kitty, WezTerm, Windows Terminal and others turn into a desktop notification, typically
only when their window is not focused). No extra service or process is involved."""

from __future__ import annotations

from typing import Any, TextIO

OSC9 = "\x1b]9;amplifier: the turn is done\x07"
BELL = "\a"


def desktop_enabled(settings: Any) -> bool:
    return bool((((settings.merged.get("notify") or {}).get("desktop")) or {}).get("enabled"))


def notify_turn_end(settings: Any, out: TextIO) -> None:
    if not desktop_enabled(settings) or not getattr(out, "isatty", lambda: False)():
        return
    out.write(BELL + OSC9)
    out.flush()
