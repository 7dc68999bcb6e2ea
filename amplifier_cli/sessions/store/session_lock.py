"""One writer per session: an exclusive advisory lock (``flock``) on ``<session>/.lock``, held while a process
has the session open and released by the kernel when that process ends, however it ends.

Why a lock and not two appenders: resuming repairs and may rewrite the transcript (a tool call left without a
result, a corrupt line, /clear), and each process builds its next request from its own copy of the history,
so two writers either write into a file that was replaced or interleave two conversations that each model
never saw. Refusing the second opener, with the id of the process that holds the session, loses nothing.
The file holds the holder's pid, only for that message; the lock itself is the truth (a stale pid is harmless).
"""

from __future__ import annotations

import os
from pathlib import Path

from ...errors import RuntimeFailure

LOCK_FILE = ".lock"


class SessionInUseError(RuntimeFailure):
    """Another live process has the session open (exit 1: nothing to fix, try again once it has ended)."""

    def __init__(self, session_id: str, holder: str | None) -> None:
        who = f"process {holder}" if holder else "another process"
        super().__init__(
            f"session {session_id} is open in another amplifier ({who}); two processes writing one transcript "
            "would lose turns, so it was not opened (fix: finish that chat first, or start a new session with "
            "`amplifier run`)"
        )
        self.session_id = session_id
        self.holder = holder


def _flock() -> object | None:
    try:
        import fcntl
    except ImportError:  # no advisory locks on this platform: one writer is then the user's to ensure
        return None
    return fcntl


def try_lock(directory: Path) -> int | None:
    """The descriptor holding the session's lock, or None when another process holds it."""
    fcntl = _flock()
    descriptor = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    if fcntl is None:
        return descriptor
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)  # type: ignore[attr-defined]
    except BlockingIOError:
        os.close(descriptor)
        return None
    except BaseException:
        os.close(descriptor)
        raise
    try:
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
    except OSError:
        pass  # the pid is only for the message another process may print; the lock is held
    return descriptor


def holder_of(directory: Path) -> str | None:
    """The pid written by the process that holds the lock (for messages only)."""
    try:
        text = (directory / LOCK_FILE).read_bytes()[:32].decode("ascii", errors="replace").strip()
    except OSError:
        return None
    return text if text.isdigit() else None


def is_locked(directory: Path) -> bool:
    """True while a live process has the session open (probes the lock without keeping it)."""
    if not (directory / LOCK_FILE).exists():
        return False
    try:
        descriptor = try_lock(directory)
    except OSError:
        return False
    if descriptor is None:
        return True
    os.close(descriptor)
    return False


def release(descriptor: int | None) -> None:
    if descriptor is not None:
        try:
            os.close(descriptor)
        except OSError:
            pass
