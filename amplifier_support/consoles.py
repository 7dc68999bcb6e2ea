"""Rich Consoles that keep whole lines where no terminal is reading.

Rich assumes 80 columns when its output is a pipe or a file, so a table piped to `cat` or `grep` cut its values
(`provider-an…`) and messages to a redirected stderr broke mid-sentence. On a terminal the terminal's width
applies as before; elsewhere text is never wrapped (the reader's pager wraps it) and tables take the width their
values need. The app and the modules make every Console they print with here, so the rule is in one place.
"""

from __future__ import annotations

import sys
from typing import IO, Any

# the width tables may take when no terminal is reading: wide enough for any value, only as wide as the values
UNBOUNDED_WIDTH = 100_000


def is_terminal(stream: IO[str] | None) -> bool:
    """Whether ``stream`` (None: stdout) is a terminal; a closed or odd stream counts as not one."""
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except ValueError:
        return False


def text_console(file: IO[str] | None = None, **options: Any) -> Any:
    """A Console for lines of text: wrapped at the terminal's width on a terminal, never wrapped elsewhere."""
    from rich.console import Console

    if is_terminal(file):
        return Console(file=file, **options)
    return Console(file=file, **{**options, "soft_wrap": True})


def table_console(file: IO[str] | None = None, **options: Any) -> Any:
    """A Console for tables: the terminal's width on a terminal; elsewhere as wide as the values need."""
    from rich.console import Console

    if is_terminal(file):
        return Console(file=file, **options)
    return Console(file=file, **{**options, "width": UNBOUNDED_WIDTH})
