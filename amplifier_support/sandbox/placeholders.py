"""Stand-ins for protected places that do not exist yet, and their removal.

A mount namespace cannot cover a name that does not exist, so the launcher makes an empty file or directory with
mode 000 in its place and binds it read-only (``namespace.make_placeholders``): the command cannot create
``.mcp.json`` or ``.claude/commands/x.md``. After each command the app removes the placeholders that no mount
namespace holds any more (a background job may still hold one: it stays until the job is gone), under an
exclusive flock of the workspace directory, so that none is removed between its creation and its mount.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..protected_paths import is_stand_in

is_placeholder = is_stand_in


def _escaped(path: str) -> bytes:
    """``path`` as /proc/PID/mountinfo writes a mount point (space, tab, newline and backslash in octal)."""
    raw = os.fsencode(path)
    for char in (b"\\", b" ", b"\t", b"\n"):
        raw = raw.replace(char, b"\\%03o" % char[0])
    return raw


def _mounted_anywhere(paths: list[str]) -> set[str]:
    """Which of ``paths`` some process's mount namespace has as a mount point."""
    wanted = {b" " + _escaped(path) + b" ": path for path in paths}
    found: set[str] = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/mountinfo", "rb") as handle:
                table = handle.read()
        except OSError:
            continue
        found.update(path for needle, path in wanted.items() if needle in table)
        if len(found) == len(wanted):
            break
    return found


def remove_unheld(places: Iterable[str], lock: str, wait: float = 0.0) -> list[str]:
    """Remove the placeholders among ``places`` that no namespace holds; returns those left in place. With
    ``wait``, try again for up to that many seconds while some are held (commands just killed are still ending)."""
    import time

    places = list(places)
    deadline = time.monotonic() + wait
    while True:
        left = _remove_unheld_once(places, lock)
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.05)


def _remove_unheld_once(places: list[str], lock: str) -> list[str]:
    import fcntl

    present = [place for place in places if is_placeholder(place)]
    if not present:
        return []
    try:
        descriptor = os.open(lock, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return present
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # a command is making its mounts right now: the next command's tidy removes them
            return present
        held = _mounted_anywhere(present)
        left = []
        for place in present:
            if place in held:
                left.append(place)
                continue
            if not is_placeholder(place):  # replaced meanwhile (by the user): not ours to remove
                continue
            try:
                (os.rmdir if os.path.isdir(place) else os.unlink)(place)
            except OSError:
                left.append(place)
        return left
    finally:
        os.close(descriptor)
