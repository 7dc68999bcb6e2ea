"""Reading a confined command's output for what the sandbox refused, so the result can say it plainly.

Landlock refuses with EACCES ("Permission denied") and logs nothing a process can read, so the output is the
only witness. A refused path is named when the output names it: a write outside the write roots, or into a
place the mount namespace keeps read-only (EROFS "Read-only file system"; moving such a place away: EBUSY). A
refused socket (network: false) shows as a Permission denied with no path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

_DENIED = re.compile(r"Permission denied|Operation not permitted|EACCES|EPERM|Errno 13|Errno 1\b|"
                     r"Read-only file system|EROFS|Errno 30|Device or resource busy")
_REFUSAL = r"(?:Permission denied|Operation not permitted|Read-only file system|Device or resource busy)"
_QUOTED = re.compile(r"[‘'`\"]([^‘’'`\"\n]+)[’'`\"]")
# Where tools put the path: `touch: cannot touch '/x': Permission denied`, `bash: line 1: /x: Permission
# denied`, `PermissionError: [Errno 13] Permission denied: '/x'`.
_PATH_FORMS = (
    re.compile(r"[‘'`\"]([^‘’'`\"\n]+)[’'`\"]: " + _REFUSAL),
    re.compile(r"(\S+): " + _REFUSAL),
    re.compile(_REFUSAL + r": [‘'`\"]?([^‘’'`\"\n]+)"),
)
_NETWORK = re.compile(r"socket|connect|bind|listen|network|port\b|http", re.IGNORECASE)
MAX_REPORTED = 5


def _inside(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _writable_unconfined(path: str) -> bool:
    """Whether this (unconfined) process could write ``path``: if not, file permissions refused it, not the
    sandbox, and the message must not blame the sandbox."""
    probe = path
    while probe and not os.path.exists(probe):
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    return os.access(probe or "/", os.W_OK)


def _candidate_paths(line: str) -> list[str]:
    for form in _PATH_FORMS:
        found = [match.group(1).strip() for match in form.finditer(line)]
        found = [item for item in found if item and not item.endswith(":")]
        if found:
            return found
    return []


def _read_only_place(path: str, read_only: Mapping[str, str]) -> str | None:
    for place in sorted(read_only, key=len, reverse=True):
        if _inside(path, (place,)):
            return place
    return None


def refused_actions(output: str, cwd: str, writable: tuple[str, ...], network_refused: bool,
                    read_only: Mapping[str, str] | None = None) -> list[str]:
    """What the output shows the sandbox refused, as sentences for the model ("writing /etc/x: outside the
    write roots"). Empty when the output shows no refusal. Paths are resolved against ``cwd``; ``read_only``
    maps the places kept read-only inside the write roots to what they are."""
    refused: list[str] = []
    for line in output.splitlines():
        if not _DENIED.search(line):
            continue
        protected = None
        for candidate in [*_candidate_paths(line), *(match.group(1) for match in _QUOTED.finditer(line))]:
            path = os.path.realpath(os.path.join(cwd, os.path.expanduser(candidate.strip())))
            place = _read_only_place(path, read_only or {})
            if place is not None and _writable_unconfined(path):
                protected = f"writing {path}: {read_only[place]} is read-only for commands"  # type: ignore[index]
                break
        if protected:
            refused.append(protected)
            if len(refused) >= MAX_REPORTED:
                break
            continue
        outside = []
        for candidate in _candidate_paths(line):
            path = os.path.realpath(os.path.join(cwd, os.path.expanduser(candidate)))
            if not _inside(path, writable) and _writable_unconfined(path):
                outside.append(path)
        if outside:
            refused.append(f"writing {outside[0]}: outside the write roots")
        elif network_refused and _NETWORK.search(line):
            refused.append("a network connection or listening socket: network is off (network: false)")
        elif network_refused and not _candidate_paths(line):
            refused.append(f"an action reported as `{line.strip()[:120]}` (likely a network socket: network is "
                           "off, or a write outside the write roots)")
        if len(refused) >= MAX_REPORTED:
            break
    return list(dict.fromkeys(refused))
