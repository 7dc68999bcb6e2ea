"""Opening the store's files only when they are regular files: a FIFO put at a session file's name would block
an open or a read forever, a device (/dev/zero) would be read without end, a directory fails obscurely."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_NOT_REGULAR = "is not a regular file (the session store holds only files here; remove it)"


def open_regular(path: Path, flags: int, mode: int = 0o600) -> int:
    """``os.open`` that never blocks on a FIFO and refuses anything but a regular file (OSError naming path)."""
    descriptor = os.open(path, flags | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), mode)
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(errno.EINVAL, _NOT_REGULAR, str(path))
        os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def read_regular_file(path: Path) -> bytes:
    """The bytes of ``path`` (FileNotFoundError when missing; OSError naming it when it is not a regular file)."""
    try:
        descriptor = open_regular(path, os.O_RDONLY)
    except OSError as error:
        if error.errno == errno.ENXIO:  # a FIFO nobody writes to
            raise OSError(errno.EINVAL, _NOT_REGULAR, str(path)) from None
        raise
    with open(descriptor, "rb") as handle:
        return handle.read()
