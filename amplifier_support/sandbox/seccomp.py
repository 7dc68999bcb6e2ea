"""A seccomp filter for what Landlock does not cover: set-id files always, IP sockets with ``network: false``.

Why, on top of Landlock:
- Landlock has no right for file modes, so a confined command could leave a setuid (or setgid) copy of a shell
  in the project or the temp dir (any local user then acts as you), and as root anywhere root owns a file.
  The filter refuses (EPERM) ``chmod``/``fchmod``/``fchmodat(2)``, ``open``/``openat``/``creat`` with
  ``O_CREAT``/``O_TMPFILE`` and ``mknod(at)`` whose mode has S_ISUID or S_ISGID; ``openat2`` (its mode is
  behind a pointer the filter cannot read) answers ENOSYS so callers fall back to ``openat``.
- Landlock's network rules cover TCP only. UDP, raw/packet sockets and MPTCP
  (``socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)``, which falls back to plain TCP against any TCP server) are
  not restricted by them. With ``network: false`` the filter makes ``socket()`` fail with EACCES for AF_INET,
  AF_INET6 and AF_PACKET.
- ``io_uring_setup`` is refused (io_uring opens files and creates sockets without those syscalls).

Standard library only, like ``landlock.py`` (the exec launcher imports it with ``python -I -S``). Syscall
numbers differ per architecture: x86_64 and aarch64 are supported; elsewhere ``supported()`` is False and the
caller reports the gap. A process of another architecture (32-bit compat) gets EACCES for every syscall.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform

PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
X32_SYSCALL_BIT = 0x40000000

AF_INET, AF_INET6, AF_PACKET = 2, 10, 17
SET_ID_BITS = 0o6000  # S_ISUID | S_ISGID
CREATING_FLAGS = 0o100 | 0o20000000  # O_CREAT | __O_TMPFILE (the same on x86_64 and aarch64)


class _Arch:
    def __init__(self, audit: int, socket: int, mode_calls: dict[int, int], open_calls: dict[int, tuple[int, int]],
                 x32: bool) -> None:
        self.audit = audit
        self.socket = socket
        self.mode_calls = mode_calls  # syscall -> index of its mode argument (always a mode)
        self.open_calls = open_calls  # syscall -> (flags index, mode index): a mode only with CREATING_FLAGS
        self.x32 = x32


IO_URING_SETUP = 425  # numbers from the unified table: the same on every architecture
OPENAT2 = 437
FCHMODAT2 = 452

_ARCHES = {
    # chmod 90, fchmod 91, fchmodat 268, creat 85, mknod 133, mknodat 259; open 2, openat 257
    "x86_64": _Arch(0xC000003E, 41, {90: 1, 91: 1, 268: 2, FCHMODAT2: 2, 85: 1, 133: 1, 259: 2},
                    {2: (1, 2), 257: (2, 3)}, x32=True),
    # fchmod 52, fchmodat 53, mknodat 33; openat 56 (no chmod, creat, mknod or open on aarch64)
    "aarch64": _Arch(0xC00000B7, 198, {52: 1, 53: 2, FCHMODAT2: 2, 33: 2}, {56: (2, 3)}, x32=False),
}

# classic BPF opcodes
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
# offsets in struct seccomp_data: nr, arch, then args[6] (each argument's low 32 bits on a little-endian machine)
_NR, _ARCH = 0, 4


def _arg(index: int) -> int:
    return 16 + 8 * index


class _Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def supported() -> bool:
    """Whether this machine's architecture is one the filter knows the syscall numbers of."""
    return platform.machine() in _ARCHES


Step = tuple[int, "int | str", "int | str", int]


def _assemble(steps: list[Step | str]) -> list[tuple[int, int, int, int]]:
    """Resolve label names (strings in the list mark a position; in jt/jf they name a later target) to
    offsets."""
    labels: dict[str, int] = {}
    position = 0
    for step in steps:
        if isinstance(step, str):
            labels[step] = position
        else:
            position += 1
    program: list[tuple[int, int, int, int]] = []
    for step in steps:
        if isinstance(step, str):
            continue
        code, jt, jf = step[0], step[1], step[2]
        here = len(program)
        if any(isinstance(target, str) and labels[target] <= here for target in (jt, jf)):
            raise ValueError(f"seccomp program: a jump backwards at {here}")  # classic BPF jumps forward only
        program.append((code, labels[jt] - here - 1 if isinstance(jt, str) else jt,
                        labels[jf] - here - 1 if isinstance(jf, str) else jf, step[3]))
    return program


def _program(arch: _Arch, deny_network: bool) -> list[tuple[int, int, int, int]]:
    steps: list[Step | str] = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ_K, 0, "eacces", arch.audit),  # another ABI (32-bit compat): refuse everything
        (_LD_W_ABS, 0, 0, _NR),
    ]
    if arch.x32:
        steps.append((_JGE_K, "eacces", 0, X32_SYSCALL_BIT))
    steps += [(_JEQ_K, "eperm", 0, IO_URING_SETUP), (_JEQ_K, "enosys", 0, OPENAT2)]
    for number, index in arch.mode_calls.items():
        steps.append((_JEQ_K, f"mode{index}", 0, number))
    for number, (flags, mode) in arch.open_calls.items():
        steps.append((_JEQ_K, f"open{flags}_{mode}", 0, number))
    if deny_network:
        steps.append((_JEQ_K, "socket", 0, arch.socket))
    steps.append((_RET_K, 0, 0, SECCOMP_RET_ALLOW))
    # jumps go forward only: the open checks come before the mode checks they lead to
    for flags, mode in sorted(set(arch.open_calls.values())):
        steps += [f"open{flags}_{mode}", (_LD_W_ABS, 0, 0, _arg(flags)), (_JSET_K, f"mode{mode}", 0, CREATING_FLAGS),
                  (_RET_K, 0, 0, SECCOMP_RET_ALLOW)]
    for index in sorted(set(arch.mode_calls.values()) | {mode for _, mode in arch.open_calls.values()}):
        steps += [f"mode{index}", (_LD_W_ABS, 0, 0, _arg(index)), (_JSET_K, "eperm", 0, SET_ID_BITS),
                  (_RET_K, 0, 0, SECCOMP_RET_ALLOW)]
    if deny_network:
        steps += ["socket", (_LD_W_ABS, 0, 0, _arg(0)), (_JEQ_K, "eacces", 0, AF_INET),
                  (_JEQ_K, "eacces", 0, AF_INET6), (_JEQ_K, "eacces", 0, AF_PACKET), (_RET_K, 0, 0, SECCOMP_RET_ALLOW)]
    steps += ["eacces", (_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.EACCES),
              "eperm", (_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.EPERM),
              "enosys", (_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.ENOSYS)]
    return _assemble(steps)


def install(deny_network: bool) -> None:
    """Install the filter on this process (inherited by everything it execs and forks). Needs no_new_privs.
    Raises OSError when the architecture is unknown or the kernel refuses the filter."""
    machine = platform.machine()
    if machine not in _ARCHES:
        raise OSError(errno.ENOTSUP, f"no seccomp filter for architecture {machine}")
    instructions = _program(_ARCHES[machine], deny_network)
    array = (_Instruction * len(instructions))(*(_Instruction(*item) for item in instructions))
    program = _Program(len(instructions), ctypes.cast(array, ctypes.POINTER(_Instruction)))
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    if prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(program), ctypes.c_ulong(0),
             ctypes.c_ulong(0)) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"prctl(PR_SET_SECCOMP) failed: {os.strerror(code)}")
