"""Read-only places inside write roots: a private user + mount namespace with read-only bind mounts.

Landlock grants writes to whole directory trees and cannot take a subdirectory (``.git/hooks``, ``.amplifier``)
out of a write root. A mount can: in a mount namespace of its own, the launcher binds each such place onto
itself and remounts the bind read-only (EROFS for every create, write, delete and rename in it), as bubblewrap
does. The user namespace is what lets an unprivileged process do that; it maps only the caller's own uid and
gid, so files keep their owners.

Why the command cannot undo it: mounts are made before Landlock (a Landlock domain refuses mount, umount and
remount), and the launcher then drops every capability the namespace gave it. A read-only place cannot be
renamed or removed (EBUSY: it is a mount point), and neither can the directories that hold it inside the write
roots (``.git`` itself, a project under the temp dir): each is bound onto itself, so ``mv .git x; mkdir .git``
cannot put a writable ``.git/hooks`` where git looks.

A place that does not exist yet cannot be mounted over, so one is made for it: a *placeholder*, an empty file or
directory with mode 000 (``placeholders.py``), bound read-only like the rest. The command then cannot create the
place (``.mcp.json``, ``.claude/commands/x.md``), while files beside it are created as usual. The app removes the
placeholder once no mount namespace holds it; ``lock`` (the workspace directory, flocked shared here, exclusively
there) keeps it from being removed between its creation and its mount.

Standard library only (the exec launcher imports it with ``python -I -S``).
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
_KEPT_FLAGS = MS_NOSUID | MS_NODEV | MS_NOEXEC  # locked on mounts a user namespace inherits: a remount keeps them

FORCE_NO_NAMESPACE_ENV = "AMPLIFIER_SANDBOX_FORCE_NO_NAMESPACE"


class NamespaceError(OSError):
    """A step of setting up the namespace failed; the message names the step. ``entered``: the process is
    already in the new user namespace (possibly without a uid mapping), so it cannot go on as if nothing
    happened."""

    entered = False


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _fail(step: str) -> NamespaceError:
    code = ctypes.get_errno()
    return NamespaceError(code, f"{step}: {os.strerror(code)}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def enter(libc: ctypes.CDLL | None = None, network: Callable[[], None] | None = None) -> None:
    """Move this (single-threaded) process into a new user and mount namespace, mapping its own uid and gid to
    themselves, with every mount private (nothing done here reaches the outer namespace). With ``network``, a
    network namespace with nothing but a loopback interface too, and ``network()`` is called in it before the
    mount namespace is made: a process it forks (the relay) holds none of the mounts made here."""
    libc = libc or _libc()
    uid, gid = os.geteuid(), os.getegid()
    # the uid map must be writable once inside; a process already in a Landlock domain (a launcher started by a
    # confined command) may not open it, and learns that before leaving its namespace, not after
    os.close(os.open("/proc/self/uid_map", os.O_WRONLY | os.O_CLOEXEC))
    if libc.unshare(ctypes.c_int(CLONE_NEWUSER | (CLONE_NEWNET if network else CLONE_NEWNS))) != 0:
        raise _fail("unshare(CLONE_NEWUSER|" + ("CLONE_NEWNET)" if network else "CLONE_NEWNS)"))
    try:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    except OSError as error:
        failure = NamespaceError(error.errno or 0, f"mapping uid/gid in the new user namespace: {error.strerror}")
        failure.entered = True
        raise failure from None
    if network is not None:
        try:
            network()
        except OSError as error:
            failure = NamespaceError(error.errno or 0, f"starting the network relay: {error.strerror or error}")
            failure.entered = True
            raise failure from None
        if libc.unshare(ctypes.c_int(CLONE_NEWNS)) != 0:
            raise _fail("unshare(CLONE_NEWNS)")
    if libc.mount(None, b"/", None, ctypes.c_ulong(MS_REC | MS_PRIVATE), None) != 0:
        raise _fail("making mounts private")


def _bind(libc: ctypes.CDLL, path: str, read_only: bool) -> None:
    encoded = os.fsencode(path)
    if libc.mount(encoded, encoded, None, ctypes.c_ulong(MS_BIND | MS_REC), None) != 0:
        raise _fail(f"bind-mounting {path}")
    if not read_only:
        return
    kept = os.statvfs(path).f_flag & _KEPT_FLAGS  # ST_NOSUID etc. have the values of MS_NOSUID etc.
    if libc.mount(None, encoded, None, ctypes.c_ulong(MS_REMOUNT | MS_BIND | MS_RDONLY | kept), None) != 0:
        raise _fail(f"remounting {path} read-only")


def _inside(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def pinned_dirs(read_only: list[str], writable: list[str]) -> list[str]:
    """The directories holding a read-only place that a command could rename or remove (their parent lies in a
    write root), outermost first: each is bound onto itself so that it cannot be moved away."""
    found: set[str] = set()
    for place in read_only:
        parent = os.path.dirname(place)
        while parent != "/" and parent:
            if _inside(os.path.dirname(parent), writable):
                found.add(parent)
            parent = os.path.dirname(parent)
    return sorted(found, key=lambda path: (path.count("/"), path))


PLACEHOLDER_MODE = 0o000
LOCK_WAIT = 2.0  # seconds to wait for the lock; a command holding it (it can open the directory) costs only this


def _shared_lock(path: str) -> int | None:
    """A shared flock on ``path`` (a directory), or None when it cannot be had within LOCK_WAIT seconds."""
    import fcntl
    import time

    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return descriptor
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(descriptor)
                return None
            time.sleep(0.01)


def make_placeholders(placeholders: list[tuple[str, str]]) -> None:
    """Create each missing (path, "dir"|"file") whose parent directory exists, empty and with mode 000."""
    for path, kind in placeholders:
        if os.path.lexists(path) or not os.path.isdir(os.path.dirname(path)):
            continue
        try:
            if kind == "dir":
                os.mkdir(path, PLACEHOLDER_MODE)
            else:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                                 PLACEHOLDER_MODE))
        except FileExistsError:  # another command's placeholder, or the place itself: bound all the same
            continue


def protect(read_only: list[str], writable: list[str], placeholders: list[tuple[str, str]] | None = None,
            lock: str | None = None, network: Callable[[], None] | None = None) -> list[str]:
    """Enter a namespace and make each path of ``read_only`` read-only (and its movable parents immovable); the
    ``placeholders`` (path, kind) that do not exist are made first. Returns the paths skipped because they do not
    exist. Raises NamespaceError."""
    libc = _libc()
    enter(libc, network)
    cwd = os.getcwd()
    held = _shared_lock(lock) if lock and placeholders else None
    try:
        if held is not None:
            make_placeholders(placeholders or [])
        return _bind_all(libc, read_only, writable, cwd)
    finally:
        if held is not None:
            os.close(held)  # the mounts now keep the placeholders: the app removes none that a namespace holds


def _bind_all(libc: ctypes.CDLL, read_only: list[str], writable: list[str], cwd: str) -> list[str]:
    for directory in pinned_dirs(read_only, writable):
        if os.path.isdir(directory):
            _bind(libc, directory, read_only=False)
    skipped = []
    for place in sorted(read_only, key=lambda path: (path.count("/"), path)):
        if os.path.lexists(place) and not os.path.islink(place):
            _bind(libc, place, read_only=True)
        else:
            skipped.append(place)
    os.chdir(cwd)  # the old cwd still points below the mounts just made; ``./.amplifier`` must meet them
    return skipped


def try_here() -> str:
    """Enter a namespace and make one read-only bind in it, in this throwaway process: why that failed, or ""."""
    try:
        enter()
        _bind(_libc(), os.path.realpath("/tmp") if os.path.isdir("/tmp") else "/", read_only=True)
    except OSError as error:
        return str(error.strerror or error)
    return ""


if __name__ == "__main__":  # ``python -I -S namespace.py``: the probe (see policy.namespace_support)
    reason = try_here()
    if reason:
        print(reason, file=sys.stderr)
    sys.exit(1 if reason else 0)
