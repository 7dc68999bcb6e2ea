"""Printing from the REPL: styled lines that land above the prompt when one is active (prompt-toolkit's
print_formatted_text goes through patch_stdout), plain writes otherwise."""

from __future__ import annotations

import sys
from typing import Any, TextIO

STYLES = {
    "info": "ansicyan",
    "dim": "ansibrightblack",
    "warning": "ansiyellow",
    "error": "ansired",
    "ok": "ansigreen",
    "title": "bold",
}


def say(text: str = "", style: str | None = None, *, end: str = "\n") -> None:
    """Print ``text`` (one or more lines) in one of STYLES (or a prompt-toolkit style string)."""
    from prompt_toolkit import print_formatted_text
    from prompt_toolkit.formatted_text import FormattedText

    fragments: list[Any] = [(STYLES.get(style or "", style or ""), text)]
    print_formatted_text(FormattedText(fragments), end=end)


def print_above_prompt(app: Any, text: str, style: str | None = None) -> None:
    """A line above the running prompt, written from its own key handler without leaving raw mode: `say` (through
    prompt-toolkit's run_in_terminal) switches the terminal to cooked mode meanwhile, where ICRNL turns an Enter
    typed right after into Ctrl-J, a new line instead of a send."""
    from prompt_toolkit.formatted_text import FormattedText
    from prompt_toolkit.renderer import print_formatted_text as write
    from prompt_toolkit.styles import Style

    app.renderer.erase(leave_alternate_screen=False)
    write(app.output, FormattedText([(STYLES.get(style or "", style or ""), text + "\n")]), Style([]))
    app.output.flush()
    app.invalidate()


def say_parts(*parts: tuple[str | None, str]) -> None:
    """One line made of (style, text) parts."""
    from prompt_toolkit import print_formatted_text
    from prompt_toolkit.formatted_text import FormattedText

    print_formatted_text(FormattedText([(STYLES.get(style or "", style or ""), text) for style, text in parts]))


class LiveStdout:
    """The streaming UI's stream in the chat: writes go to whatever ``sys.stdout`` is at that moment — the
    terminal during a turn, prompt-toolkit's patch_stdout proxy while an approval question is up (so
    output of tools running in parallel lands above the question instead of inside its line). Terminal
    questions (isatty, fileno, encoding) are answered by the real stdout."""

    def __init__(self, real: TextIO) -> None:
        self.real = real

    def write(self, text: str) -> int:
        return sys.stdout.write(text)

    def flush(self) -> None:
        sys.stdout.flush()

    def isatty(self) -> bool:
        return self.real.isatty()

    def fileno(self) -> int:
        return self.real.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self.real, "encoding", None) or "utf-8"
