"""A seccomp filter that refuses IP sockets, for ``network: false``.

Why, on top of Landlock: Landlock's network rules cover TCP only. UDP, raw/packet sockets and MPTCP
(``socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)``, which falls back to plain TCP against any TCP server) are
not restricted by them, so a confined command could still reach the network. This filter makes
``socket()`` fail with EACCES for AF_INET, AF_INET6 and AF_PACKET, and refuses ``io_uring_setup`` (io_uring
can create sockets without the ``socket`` syscall). Unix sockets and everything else are untouched.

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
IO_URING_SETUP = 425  # the same number on every architecture (unified table)

# machine -> (AUDIT_ARCH_*, socket syscall number)
_ARCHES = {
    "x86_64": (0xC000003E, 41),
    "aarch64": (0xC00000B7, 198),
}

# classic BPF opcodes
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
# offsets in struct seccomp_data: nr, arch, ip, args[6] (args[0]'s low 32 bits on a little-endian machine)
_NR, _ARCH, _ARG0 = 0, 4, 16


class _Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def supported() -> bool:
    """Whether this machine's architecture is one the filter knows the syscall numbers of."""
    return platform.machine() in _ARCHES


def _program(arch: int, socket_nr: int) -> list[tuple[int, int, int, int]]:
    allow, deny = 10, 11
    program = [
        (_LD_W_ABS, 0, 0, _ARCH),
        (_JEQ_K, 0, deny - 2, arch),  # another ABI (32-bit compat): refuse everything
        (_LD_W_ABS, 0, 0, _NR),
        (_JGE_K, deny - 4, 0, X32_SYSCALL_BIT),  # x32 syscalls on x86_64
        (_JEQ_K, deny - 5, 0, IO_URING_SETUP),
        (_JEQ_K, 0, allow - 6, socket_nr),
        (_LD_W_ABS, 0, 0, _ARG0),
        (_JEQ_K, deny - 8, 0, AF_INET),
        (_JEQ_K, deny - 9, 0, AF_INET6),
        (_JEQ_K, deny - 10, 0, AF_PACKET),
        (_RET_K, 0, 0, SECCOMP_RET_ALLOW),
        (_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.EACCES),
    ]
    assert len(program) == deny + 1
    return program


def refuse_ip_sockets() -> None:
    """Install the filter on this process (inherited by everything it execs and forks). Needs no_new_privs.
    Raises OSError when the architecture is unknown or the kernel refuses the filter."""
    machine = platform.machine()
    if machine not in _ARCHES:
        raise OSError(errno.ENOTSUP, f"no seccomp socket filter for architecture {machine}")
    instructions = _program(*_ARCHES[machine])
    array = (_Instruction * len(instructions))(*(_Instruction(*item) for item in instructions))
    program = _Program(len(instructions), ctypes.cast(array, ctypes.POINTER(_Instruction)))
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    if prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(program), ctypes.c_ulong(0),
             ctypes.c_ulong(0)) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"prctl(PR_SET_SECCOMP) failed: {os.strerror(code)}")
