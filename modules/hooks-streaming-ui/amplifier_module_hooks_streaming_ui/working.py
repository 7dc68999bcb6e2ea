"""The working indicator: one line at the bottom of a terminal while a turn runs, so a slow model or a long
tool does not look like a hang. It shows a spinner, the elapsed time, the output tokens so far, the tools
running and how to interrupt.

Below it, one line per sub-agent running (its agent, elapsed time and current tool), read from the app's
capability ``subagents.running`` when the app offers it.

It draws only on a terminal (never into a pipe or a file), only when the cursor is at the start of an empty
line (so it never splits streamed text), and it is erased before anything else is printed: the renderer
calls :meth:`WorkingIndicator.clear` before each write, and the app pauses it around its own questions
and messages through the capability ``ui.working_indicator``.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from rich.cells import cell_len

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
TICK_SECONDS = 0.1
CHARS_PER_TOKEN = 4  # estimate for text still streaming; the provider's count replaces it per response
INTERRUPT_HINT = "Ctrl-C to interrupt"
_CLEAR = "\r\x1b[K"
_CLEAR_BELOW = "\r\x1b[J"  # the indicator line and the sub-agent lines under it
MAX_CHILD_LINES = 6
_DIM, _RESET = "\x1b[2m", "\x1b[0m"


def is_terminal(stream: Any) -> bool:
    """``stream`` is a terminal that understands ``\\r`` and erase-line (not a pipe, a file or TERM=dumb)."""
    isatty = getattr(stream, "isatty", None)
    try:
        tty = bool(isatty is not None and isatty())
    except ValueError:
        return False
    return tty and os.environ.get("TERM", "").lower() not in ("dumb", "unknown")


def elapsed_text(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole}s" if whole < 60 else f"{whole // 60}m {whole % 60:02d}s"


def fit(text: str, cells: int) -> str:
    """``text`` cut to at most ``cells`` terminal cells (a wrapped line could not be erased with one \\r)."""
    if cell_len(text) <= cells:
        return text
    while text and cell_len(text) > max(cells - 1, 0):
        text = text[:-1]
    return text + "…" if cells > 0 else ""


class WorkingIndicator:
    """Spinner line for one session. ``can_draw`` says whether the cursor is at the start of an empty line;
    ``width`` gives the terminal width in cells."""

    def __init__(self, stream: TextIO | None, *, can_draw: Callable[[], bool], width: Callable[[], int],
                 color: bool = False) -> None:
        self.stream = stream if stream is not None and is_terminal(stream) else None
        self._can_draw = can_draw
        self._width = width
        self._color = color
        self._task: asyncio.Task[None] | None = None
        self._drawn = False
        self._paused = 0
        self._started = 0.0
        self._frame = 0
        self._tokens = 0
        self._streamed_chars = 0
        self._tools: dict[str, str] = {}
        self._progress: dict[str, str] = {}  # tool name -> its latest progress (MCP progress notifications)
        self._stopping = False
        self._conditions: list[Callable[[], bool]] = []
        self.children: Callable[[], list[dict[str, Any]]] = list  # the running sub-agents (capability)
        self._lines_below = 0

    def add_draw_condition(self, condition: Callable[[], bool]) -> Callable[[], None]:
        """Draw only while ``condition()`` also holds (a sub-agent's output is at a line start too); returns
        the function that removes it."""
        self._conditions.append(condition)

        def remove() -> None:
            if condition in self._conditions:
                self._conditions.remove(condition)

        return remove

    def detach(self) -> None:
        self.stop()

    @property
    def enabled(self) -> bool:
        return self.stream is not None

    @property
    def running(self) -> bool:
        return self._task is not None

    # -- what the turn does ----------------------------------------------------------------------------
    def start(self) -> None:
        """A turn began: reset the figures and start ticking (nothing happens off a terminal)."""
        if not self.enabled or self._task is not None:
            return
        self._started = time.monotonic()
        self._frame = 0
        self._tokens = 0
        self._streamed_chars = 0
        self._tools.clear()
        self._progress.clear()
        self._stopping = False
        self._task = asyncio.get_running_loop().create_task(self._tick())

    def stop(self) -> None:
        """The turn ended (done, failed or interrupted): stop ticking and erase the line."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        self.clear()

    def streamed(self, chars: int) -> None:
        self._streamed_chars += chars

    def response(self, output_tokens: int) -> None:
        """A provider response finished: its real token count replaces the estimate of its streamed text."""
        self._tokens += output_tokens
        self._streamed_chars = 0

    def tool_started(self, call_id: str, name: str) -> None:
        self._tools[call_id] = name

    def tool_finished(self, call_id: str) -> None:
        name = self._tools.pop(call_id, None)
        if name is not None and name not in self._tools.values():
            self._progress.pop(name, None)

    def tool_progress(self, name: str, text: str) -> None:
        """A running tool said how far it is (e.g. an MCP server's progress notification): shown by its name."""
        if name in self._tools.values():
            self._progress[name] = " ".join(text.split())[:60]

    def stopping(self) -> None:
        self._stopping = True

    # -- the line ----------------------------------------------------------------------------------------
    def line(self, now: float | None = None) -> str:
        """The indicator's text (no escapes), e.g. ``⠋ Running bash… 31s · 120 tokens · Ctrl-C to interrupt``."""
        seconds = (time.monotonic() if now is None else now) - self._started
        if self._stopping:
            what = "Stopping…"
        elif self._tools:
            names = sorted(set(self._tools.values()))
            shown = [f"{name} ({self._progress[name]})" if name in self._progress else name for name in names]
            what = f"Running {', '.join(shown)}…"
        else:
            what = "Working…"
        parts = [f"{SPINNER[self._frame % len(SPINNER)]} {what} {elapsed_text(seconds)}"]
        tokens = self._tokens + self._streamed_chars // CHARS_PER_TOKEN
        if tokens:
            parts.append(f"{'~' if self._streamed_chars else ''}{tokens:,} tokens")
        parts.append(INTERRUPT_HINT)
        return " · ".join(parts)

    def child_lines(self) -> list[str]:
        """One line per running sub-agent, e.g. ``  ⎿ reviewer · 12s · grep`` (at most MAX_CHILD_LINES)."""
        try:
            children = list(self.children() or [])
        except Exception:  # the list is a courtesy: never let it stop the indicator
            return []
        lines = []
        for child in children[:MAX_CHILD_LINES]:
            doing = child.get("current_tool") or ("waiting for a slot" if child.get("queued") else "thinking")
            mark = " (background)" if child.get("background") else ""
            lines.append(f"  ⎿ {child.get('agent')}{mark} · {elapsed_text(float(child.get('elapsed_seconds') or 0))}"
                         f" · {doing}")
        if len(children) > MAX_CHILD_LINES:
            lines.append(f"  ⎿ … and {len(children) - MAX_CHILD_LINES} more")
        return lines

    def draw(self) -> None:
        if self.stream is None or self._paused or not self._can_draw() \
                or not all(condition() for condition in self._conditions):
            return
        cells = max(self._width() - 1, 10)
        rows = [fit(self.line(), cells), *(fit(line, cells) for line in self.child_lines())]
        if self._color:
            rows = [_DIM + row + _RESET for row in rows]
        below = len(rows) - 1
        # the sub-agent lines go under the indicator; the cursor returns to the indicator line's start
        text = "\r" + "\x1b[K\n".join(rows) + "\x1b[K" + (f"\x1b[{below}A\r" if below else "")
        if self._lines_below > below:  # fewer children than last time: erase the stale lines too
            text = _CLEAR_BELOW + text
        self.stream.write(text)
        self.stream.flush()
        self._drawn = True
        self._lines_below = below

    def clear(self) -> None:
        """Erase the line (and the sub-agent lines under it) if it is on screen (the cursor goes back to the
        start of that empty line)."""
        if self._drawn and self.stream is not None:
            self._drawn = False
            self.stream.write(_CLEAR_BELOW if self._lines_below else _CLEAR)
            self._lines_below = 0
            self.stream.flush()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Erased and not drawn while the block runs (a question or a message of the app is on screen)."""
        self.clear()
        self._paused += 1
        try:
            yield
        finally:
            self._paused -= 1

    async def _tick(self) -> None:
        try:
            while True:
                self.draw()
                self._frame += 1
                await asyncio.sleep(TICK_SECONDS)
        except asyncio.CancelledError:
            pass


class SubAgentIndicator:
    """A sub-agent's handle on its parent's indicator (same terminal): it erases the parent's line before the
    sub-agent prints and holds it back while the sub-agent's output stops mid-line. The parent's turn owns
    start and stop; the sub-agent's tokens count toward the parent's figure."""

    enabled = False

    def __init__(self, parent: WorkingIndicator, can_draw: Callable[[], bool]) -> None:
        self.parent = parent
        self._remove = parent.add_draw_condition(can_draw)

    def clear(self) -> None:
        self.parent.clear()

    def streamed(self, chars: int) -> None:
        self.parent.streamed(chars)

    def response(self, output_tokens: int) -> None:
        self.parent.response(output_tokens)

    def start(self) -> None:
        """The sub-agent's turn: the parent's indicator is already running."""

    def stop(self) -> None:
        self.parent.clear()

    def stopping(self) -> None:
        """Cancellation is shown by the parent's own handler."""

    def tool_started(self, call_id: str, name: str) -> None:
        """Only the parent's tools are named (the sub-agent's show in its indented lines)."""

    def tool_finished(self, call_id: str) -> None:
        """See tool_started."""

    def detach(self) -> None:
        self._remove()
