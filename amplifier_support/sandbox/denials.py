"""Reading a confined command's output for what the sandbox refused, so the result can say it plainly.

Landlock refuses with EACCES ("Permission denied") and logs nothing a process can read, so the output is the
only witness. A refused path is named when the output names it: a write outside the write roots. A refused
socket (network: false) shows as a Permission denied with no path.
"""

from __future__ import annotations

import os
import re

_DENIED = re.compile(r"Permission denied|Operation not permitted|EACCES|EPERM|Errno 13|Errno 1\b")
_REFUSAL = r"(?:Permission denied|Operation not permitted)"
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


def refused_actions(output: str, cwd: str, writable: tuple[str, ...], network_refused: bool) -> list[str]:
    """What the output shows the sandbox refused, as sentences for the model ("writing /etc/x: outside the
    write roots"). Empty when the output shows no refusal. Paths are resolved against ``cwd``."""
    refused: list[str] = []
    for line in output.splitlines():
        if not _DENIED.search(line):
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
