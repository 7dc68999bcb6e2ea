"""An Enter typed ahead (while an answer streams, or while the chat switches sessions) still sends the message.

Between prompts the terminal is in cooked mode, where ICRNL turns the Enter key's CR into LF; the next prompt then
reads the LF as Ctrl-J, which adds a line instead of sending. The chat turns ICRNL off while it runs (the prompt
itself does so while it reads), so what was typed ahead reaches the prompt as typed: in canonical mode a CR ends
no line, and the prompt's raw mode makes the pending bytes readable. `!cmd` gets the terminal as the user had it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any


def enter_typed_ahead_sends(fd: int = 0) -> AbstractContextManager[None]:
    """ICRNL off on ``fd`` (a terminal) for the block, restored after; nothing when ``fd`` is not a terminal."""
    return _icrnl(fd, on=False)


def terminal_as_the_user_had_it(fd: int = 0) -> AbstractContextManager[None]:
    """ICRNL back on for the block (a program the user runs with `!cmd` reads lines as usual), then off again."""
    return _icrnl(fd, on=True)


@contextmanager
def _icrnl(fd: int, *, on: bool) -> Iterator[None]:
    current = _attributes(fd)
    if current is None:
        yield
        return
    import termios

    _apply(fd, [current[0] | termios.ICRNL if on else current[0] & ~termios.ICRNL, *current[1:]])
    try:
        yield
    finally:
        _apply(fd, current)


def _attributes(fd: int) -> list[Any] | None:
    try:
        import termios
    except ImportError:  # not a POSIX terminal API
        return None
    try:
        return termios.tcgetattr(fd)
    except (termios.error, OSError, ValueError):  # not a terminal, or closed
        return None


def _apply(fd: int, attributes: list[Any]) -> None:
    import termios

    try:
        termios.tcsetattr(fd, termios.TCSANOW, attributes)
    except (OSError, termios.error):
        pass  # the terminal went away: nothing left to restore
