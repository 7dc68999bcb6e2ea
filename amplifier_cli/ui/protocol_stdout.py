"""Stdout kept for a protocol: `run -o json|stream-json` records and `amplifier acp`'s JSON-RPC messages.

While such a front-end runs, file descriptor 1 and ``sys.stdout`` point at stderr, so anything else written
there (a module's print, a UI configured for stdout, a child process a tool or an MCP server starts: they
inherit fd 1) lands on stderr. The protocol writes to a private duplicate of the real stdout."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


@contextmanager
def reserved_stdout() -> Iterator[TextIO]:
    """A text stream on the real stdout, for the protocol alone; everything else goes to stderr meanwhile."""
    original = sys.stdout
    original.flush()
    saved_fd: int | None = None
    records: TextIO = original
    try:
        descriptor = original.fileno()
    except (AttributeError, OSError, ValueError):
        descriptor = None  # not a real file (e.g. captured in-process): redirecting sys.stdout is enough
    if descriptor == 1:
        saved_fd = os.dup(1)
        os.set_inheritable(saved_fd, False)  # no child process may write protocol bytes
        records = open(saved_fd, "w", encoding="utf-8", closefd=False)
        os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        yield records
    finally:
        sys.stdout = original
        if saved_fd is not None:
            records.close()
            os.dup2(saved_fd, 1)
            os.close(saved_fd)

