"""The three Landlock system calls, ``PR_SET_NO_NEW_PRIVS`` and dropping capabilities, through ctypes.

Standard library only and importable on its own (no package-relative imports): the exec launcher runs this
file's directory with ``python -I -S``, so it must not need amplifier_core or site-packages.

Why ctypes and not a binding from the package index: the bindings there are pre-releases or young one-person
projects without network rules; the kernel interface is three syscalls and two small structs, stable by
design (new features are new bits guarded by the ABI version).
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import sys

# Syscall numbers: Landlock was added after the syscall tables were unified, so every architecture uses these.
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446

CREATE_RULESET_VERSION = 1 << 0
RULE_PATH_BENEATH = 1
RULE_NET_PORT = 2
PR_SET_NO_NEW_PRIVS = 38

# Filesystem access rights (ABI 1 unless noted).
FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2: link/rename across directories
FS_TRUNCATE = 1 << 14  # ABI 3
# Network access rights (ABI 4).
NET_BIND_TCP = 1 << 0
NET_CONNECT_TCP = 1 << 1
# Scopes (ABI 6).
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

FORCE_UNAVAILABLE_ENV = "AMPLIFIER_SANDBOX_FORCE_UNAVAILABLE"


class LandlockError(OSError):
    """Building or enforcing a ruleset failed; the message says which step."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # __attribute__((packed)) in the uapi header: 12 bytes
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc: ctypes.CDLL | None = None


def _syscall(number: int, *args: object) -> int:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
    result = _libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return int(result)


def abi_version() -> tuple[int, str]:
    """(Landlock ABI version, why 0): 0 when the kernel cannot confine, with the reason for a warning.

    The environment variable ``AMPLIFIER_SANDBOX_FORCE_UNAVAILABLE=1`` makes this answer 0: it exists for
    tests of the "no Landlock" path and must not be set otherwise."""
    if os.environ.get(FORCE_UNAVAILABLE_ENV, "") not in ("", "0"):
        return 0, f"Landlock reported unavailable because {FORCE_UNAVAILABLE_ENV} is set (a test switch)"
    if not sys.platform.startswith("linux"):
        return 0, f"Landlock is a Linux feature; this system is {sys.platform}"
    try:
        return _syscall(SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                        ctypes.c_uint32(CREATE_RULESET_VERSION)), ""
    except OSError as error:
        if error.errno == errno.ENOSYS:
            return 0, "this kernel has no Landlock (older than 5.13 or built without it)"
        if error.errno == errno.EOPNOTSUPP:
            return 0, "Landlock is disabled on this kernel (add landlock to the lsm= boot parameter)"
        return 0, f"Landlock cannot be queried: {error.strerror}"


def write_access(abi: int) -> int:
    """Every filesystem right that changes something, as far as ``abi`` knows them."""
    rights = (FS_WRITE_FILE | FS_REMOVE_DIR | FS_REMOVE_FILE | FS_MAKE_CHAR | FS_MAKE_DIR | FS_MAKE_REG
              | FS_MAKE_SOCK | FS_MAKE_FIFO | FS_MAKE_BLOCK | FS_MAKE_SYM)
    if abi >= 2:
        rights |= FS_REFER
    if abi >= 3:
        rights |= FS_TRUNCATE
    return rights


def file_write_access(abi: int) -> int:
    """The write rights a rule on a single file (not a directory) may grant."""
    return FS_WRITE_FILE | (FS_TRUNCATE if abi >= 3 else 0)


def set_no_new_privs() -> None:
    """After this, execve never grants privileges (setuid/setgid bits and file capabilities are ignored)."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    if prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0),
                   ctypes.c_ulong(0)) != 0:
        code = ctypes.get_errno()
        raise LandlockError(code, f"prctl(PR_SET_NO_NEW_PRIVS) failed: {os.strerror(code)}")


PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAPABILITY_VERSION_3 = 0x20080522
_LAST_CAPABILITY = 63  # more than any kernel defines; unknown ones answer EINVAL


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities() -> None:
    """Give up every capability for good: the bounding set (so an exec as root gains none back), the ambient,
    effective, permitted and inheritable sets. no_new_privs does not do this: root keeps its capabilities
    (loading kernel modules, raw sockets, chown of any file, signalling any process). A no-op for a process
    without capabilities (the bounding set can only be changed with CAP_SETPCAP, which it lacks)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in range(_LAST_CAPABILITY + 1):
        libc.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(capability), ctypes.c_ulong(0), ctypes.c_ulong(0),
                   ctypes.c_ulong(0))
    libc.prctl(PR_CAP_AMBIENT, ctypes.c_ulong(PR_CAP_AMBIENT_CLEAR_ALL), ctypes.c_ulong(0), ctypes.c_ulong(0),
               ctypes.c_ulong(0))
    header = _CapHeader(_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        code = ctypes.get_errno()
        raise LandlockError(code, f"capset (dropping capabilities) failed: {os.strerror(code)}")


def restrict_self(abi: int, writable: list[str], deny_network: bool) -> list[str]:
    """Confine this process (and every process it starts) to writing only beneath ``writable`` and to abstract
    unix sockets of its own sandbox (ABI >= 6); with ``deny_network`` also refuse TCP connect and bind (ABI >= 4).
    Reading and executing stay unrestricted. Returns the paths skipped because they do not exist.

    The caller must have set no_new_privs (``set_no_new_privs``) first."""
    handled_fs = write_access(abi)
    handled_net = NET_BIND_TCP | NET_CONNECT_TCP if deny_network and abi >= 4 else 0
    # abstract unix sockets have no file a path rule could refuse: an X server (keystrokes into any window) or a
    # D-Bus bus listening there is a way out whatever ``deny_network`` says
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET if abi >= 6 else 0
    attr = _RulesetAttr(handled_fs, handled_net, scoped)
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else (16 if abi >= 4 else 8)
    try:
        ruleset_fd = _syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                              ctypes.c_uint32(0))
    except OSError as error:
        raise LandlockError(error.errno, f"landlock_create_ruleset failed: {error.strerror}") from None
    skipped: list[str] = []
    try:
        for path in writable:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                skipped.append(path)
                continue
            try:
                is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)
                allowed = handled_fs if is_dir else file_write_access(abi)
                rule = _PathBeneathAttr(allowed, fd)
                try:
                    _syscall(SYS_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset_fd), ctypes.c_int(RULE_PATH_BENEATH),
                             ctypes.byref(rule), ctypes.c_uint32(0))
                except OSError as error:
                    raise LandlockError(error.errno, f"landlock_add_rule for {path} failed: {error.strerror}") \
                        from None
            finally:
                os.close(fd)
        try:
            _syscall(SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset_fd), ctypes.c_uint32(0))
        except OSError as error:
            raise LandlockError(error.errno, f"landlock_restrict_self failed: {error.strerror}") from None
    finally:
        os.close(ruleset_fd)
    return skipped
