"""Printing from the REPL: styled lines that land above the prompt when one is active (prompt-toolkit's
print_formatted_text goes through patch_stdout), plain writes otherwise."""

from __future__ import annotations

from typing import Any

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


def say_parts(*parts: tuple[str | None, str]) -> None:
    """One line made of (style, text) parts."""
    from prompt_toolkit import print_formatted_text
    from prompt_toolkit.formatted_text import FormattedText

    print_formatted_text(FormattedText([(STYLES.get(style or "", style or ""), text) for style, text in parts]))
