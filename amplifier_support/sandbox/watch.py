"""What changed in the protected places while a command ran: a cheap before/after comparison.

The mount namespace makes existing protected places read-only, but it cannot cover a place that does not exist
yet (no ``.mcp.json`` to mount over), and where no namespace can be made nothing covers them. So every command
run for the model is bracketed by two snapshots of the places (lstat of each: kind, inode, size, mtime; the
entries below a directory place, up to ``MAX_ENTRIES``), and the result names what was created, changed or
removed, so the user sees it before trusting the project again.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass

from .placeholders import is_placeholder

MAX_ENTRIES = 2000  # per directory place: beyond this the rest is not compared (and the report says so)

Signature = tuple[str, int, int, int]  # kind, inode, size, mtime_ns


def _signature(info: os.stat_result) -> Signature:
    kind = "dir" if stat.S_ISDIR(info.st_mode) else "link" if stat.S_ISLNK(info.st_mode) else "file"
    return kind, info.st_ino, info.st_size, info.st_mtime_ns


@dataclass(frozen=True)
class Snapshot:
    """path -> signature of every protected place and what lies below it; ``cut`` names the places whose
    entries were not all read."""

    entries: dict[str, Signature]
    labels: dict[str, str]  # place -> what it is
    cut: frozenset[str] = frozenset()


def _walk(place: str, entries: dict[str, Signature]) -> bool:
    """Add the entries below the directory ``place``; False when there were more than MAX_ENTRIES."""
    pending = [place]
    count = 0
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as listing:
                for entry in listing:
                    count += 1
                    if count > MAX_ENTRIES:
                        return False
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    entries[entry.path] = _signature(info)
                    if stat.S_ISDIR(info.st_mode):
                        pending.append(entry.path)
        except OSError:
            continue
    return True


def take(places: Iterable[tuple[str, str]]) -> Snapshot:
    """A snapshot of the (path, label) places."""
    entries: dict[str, Signature] = {}
    labels: dict[str, str] = {}
    cut: set[str] = set()
    for place, label in places:
        labels[place] = label
        try:
            info = os.lstat(place)
        except OSError:
            continue
        if is_placeholder(place):  # the launcher's stand-in for a place that does not exist: still absent
            continue
        entries[place] = _signature(info)
        if stat.S_ISDIR(info.st_mode) and not _walk(place, entries):
            cut.add(place)
    return Snapshot(entries, labels, frozenset(cut))


def _place_of(path: str, labels: dict[str, str]) -> str:
    for place in sorted(labels, key=len, reverse=True):
        if path == place or path.startswith(place.rstrip("/") + "/"):
            return place
    return path


def _shown(path: str, base: str) -> str:
    relative = os.path.relpath(path, base) if base else path
    return path if relative.startswith("..") else relative


def changes(before: Snapshot, after: Snapshot, base: str = "", limit: int = 8) -> list[str]:
    """What differs, as phrases ("created .mcp.json (the project's MCP servers file)"), paths relative to
    ``base`` when inside it; at most ``limit`` (then "and N more")."""
    found: list[str] = []
    for path in sorted(set(before.entries) | set(after.entries)):
        old, new = before.entries.get(path), after.entries.get(path)
        if old == new:
            continue
        if old is not None and new is not None and old[0] == new[0] == "dir" and old[1] == new[1]:
            continue  # a directory's own mtime and size follow its entries, which are compared one by one
        verb = "created" if old is None else "removed" if new is None else "changed"
        label = after.labels.get(_place_of(path, after.labels)) or before.labels.get(_place_of(path, before.labels))
        found.append(f"{verb} {_shown(path, base)}" + (f" ({label})" if label else ""))
    for place in sorted(before.cut | after.cut):
        found.append(f"{_shown(place, base)} holds more than {MAX_ENTRIES} entries: only the first were compared")
    if len(found) > limit:
        found = [*found[:limit], f"and {len(found) - limit} more"]
    return found
