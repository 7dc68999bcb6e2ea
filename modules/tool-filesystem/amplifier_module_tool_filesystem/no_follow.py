"""Open what the policy approved, and nothing else: walk the checked real path one component at a time
without following symlinks.

The policy judges a fully resolved path, but a concurrent command (the bash tool, a parallel tool call) can
swap a directory or the file for a symlink between that check and the open. Every component of a resolved
path is a real directory, so opening each with ``O_NOFOLLOW`` relative to its parent (``openat``) either
reaches exactly the checked place or fails; a swap is reported as :class:`PathChanged`, never followed.
Where the platform lacks ``openat``/``O_NOFOLLOW`` (Windows) plain paths are used.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

SUPPORTED = (hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY") and os.open in os.supports_dir_fd
             and os.mkdir in os.supports_dir_fd and os.rename in os.supports_dir_fd)  # os.replace shares renameat
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# O_PATH needs only search permission on each directory, like a plain path lookup does.
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) \
    | _CLOEXEC


class PathChanged(Exception):
    """A component of an approved path became a symlink (or stopped being what was checked) before use."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} changed while it was being opened (a symlink appeared in its path after the "
                         "access check); nothing was read or written. Check what replaced it before trying again.")


def _is_symlink_at(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _open_component(name: str, flags: int, dir_fd: int, full: Path, mode: int = 0o777) -> int:
    try:
        return os.open(name, flags, mode, dir_fd=dir_fd)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK) and _is_symlink_at(name, dir_fd):
            raise PathChanged(full) from None
        error.filename = str(full)
        raise


def open_directory(path: Path, create: bool = False) -> int:
    """A descriptor for the directory at the real path ``path``; missing directories are made if ``create``."""
    fd = os.open(path.anchor or "/", _DIR_FLAGS)
    try:
        for index, part in enumerate(path.parts[1:], 2):
            here = Path(*path.parts[:index])
            try:
                next_fd = _open_component(part, _DIR_FLAGS, fd, here)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                next_fd = _open_component(part, _DIR_FLAGS, fd, here)
            os.close(fd)
            fd = next_fd
        return fd
    except BaseException:
        os.close(fd)
        raise


def open_for_listing(path: Path) -> int:
    """A readable descriptor (for ``os.scandir``) of the directory at the real path ``path``, reached by the
    same no-follow walk as a file: a directory swapped for a symlink after the check is refused. Only where
    ``SUPPORTED`` (elsewhere list by path)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC
    if path.parent == path:  # the file system root: nothing above it to swap
        return os.open(path, flags)
    dir_fd = open_directory(path.parent)
    try:
        return _open_component(path.name, flags | os.O_NOFOLLOW, dir_fd, path)
    finally:
        os.close(dir_fd)


def open_for_reading(path: Path) -> int:
    """A read descriptor for the regular file at the real path ``path`` (never a symlink, FIFO or device)."""
    if not SUPPORTED:
        return os.open(path, os.O_RDONLY | _CLOEXEC)
    dir_fd = open_directory(path.parent)
    try:
        # O_NONBLOCK: a FIFO swapped in after the check must not block the open forever.
        fd = _open_component(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, dir_fd, path)
    finally:
        os.close(dir_fd)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise PathChanged(path)
    os.set_blocking(fd, True)
    return fd


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    current = os.umask(0o022)  # no /proc: read it the racy way, restoring at once
    os.umask(current)
    return current


def replace_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a temp file beside ``path``, fsync, rename over ``path``; parents are created.

    A replaced file keeps its permission bits; a new one gets the umask default. A failure leaves the old
    file intact and no temp file behind.
    """
    if not SUPPORTED:
        _replace_by_path(path, data)
        return
    dir_fd = open_directory(path.parent, create=True)
    try:
        try:
            mode = stat.S_IMODE(os.stat(path.name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        temp_name = f".{path.name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(temp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC, 0o600,
                     dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as temp_file:
                temp_file.write(data)
                temp_file.flush()
                os.fsync(temp_file.fileno())
                os.fchmod(temp_file.fileno(), mode)
            os.replace(temp_name, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp_name, dir_fd=dir_fd)
            raise
    finally:
        os.close(dir_fd)


def _replace_by_path(path: Path, data: bytes) -> None:
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    descriptor, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as temp_file:
            temp_file.write(data)
            temp_file.flush()
            os.fsync(temp_file.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
