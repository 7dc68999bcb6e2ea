"""The app's DisplaySystem: shows hook ``user_message``s on stderr, labelled with level and source, so
they never mix into machine output on stdout."""

from __future__ import annotations

import sys
from typing import Any, TextIO

_LABELS = {"info": "info", "warning": "warning", "error": "error"}


class StderrDisplay:
    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream

    def show_message(self, message: str, level: str = "info", source: str = "hook") -> None:
        stream = self._stream or sys.stderr
        label = _LABELS.get(level, level)
        stream.write(f"[{label}] {source}: {message}\n")
        stream.flush()


def display_for(stream: Any = None) -> StderrDisplay:
    return StderrDisplay(stream)
