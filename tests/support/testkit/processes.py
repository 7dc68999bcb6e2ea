"""Whether a process a test started is still running, read from /proc."""

from __future__ import annotations

from pathlib import Path


def process_alive(pid: int) -> bool:
    """True while ``pid`` exists and is neither a zombie nor dead (a zombie has ended, merely unreaped). The
    process can be reaped between opening its stat file and reading it: that read fails with ESRCH."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")
