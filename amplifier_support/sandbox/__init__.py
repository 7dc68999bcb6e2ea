"""Confine commands run on behalf of the model with the operating system: Linux Landlock plus no_new_privs, and
a mount namespace for the places inside the write roots that must stay read-only.

Mechanism only: the caller chooses the mode, the workspace and extra write roots (its policy); this package
says what the kernel can enforce and starts commands under it. Any module may use it (tool-bash, hook-shell),
so every command run for the model meets the same sandbox.

Usage::

    from amplifier_support.sandbox import SandboxPolicy, confine

    confinement = confine(SandboxPolicy(mode="workspace-write", network=False), workspace="/path/to/project")
    if (message := confinement.refusal()) is not None:      # required, but not enforceable here
        ...  # do not run; report ``message``
    if (warning := confinement.warning()) is not None:      # off, or less than asked: tell the user once
        ...
    process = await create_confined_subprocess_exec(confinement, "/bin/bash", "-c", command, stdout=PIPE)
    # or any subprocess API with ``confinement.argv(["/bin/bash", "-c", command])``
    note = confinement.explain(output, cwd)                 # "Blocked by the sandbox ...: refused ..." or None

Modes: ``workspace-write`` (write only beneath the workspace, ``write_roots``, the temp dirs and a few device
files such as /dev/null), ``read-only`` (the temp dirs and those devices only; a workspace under a temp dir stays
read-only: bound so in the namespace, or that temp dir is left out), ``off`` (unconfined; ``warning`` says so).
Reading and executing are never restricted. ``network=False`` refuses TCP connect and bind (Landlock ABI >= 4)
and every other IP socket (UDP, raw, MPTCP: a seccomp filter, x86_64 and aarch64). In every confined mode
abstract unix sockets outside the sandbox are refused (ABI >= 6); named unix sockets are not covered.
Every confined command also runs with no_new_privs, so setuid programs (sudo) gain nothing,
and without capabilities (started by root, it keeps root's file ownership but none of its powers); it
cannot make setuid/setgid files (a seccomp filter, x86_64 and aarch64).

Protected places (``amplifier_support.protected_paths``: ``.amplifier/``, ``.mcp.json``, ``.claude/``, git's
hooks and config, plus what the caller passes as ``confine(..., protect=[(path, label)])``) that lie inside the
write roots are bound read-only in a user + mount namespace of the command's own (``namespace.py``; one that does
not exist yet gets an empty read-only stand-in, ``placeholders.py``, removed by ``changed``/``tidy`` once no
command holds it), and so is the workspace in read-only mode when it lies under the temp dir. Where no namespace
can be made (``namespace_support()``; ``AMPLIFIER_SANDBOX_FORCE_NO_NAMESPACE=1`` simulates that for tests)
``warning`` says so and commands run with Landlock alone. Either way the caller brackets each command with
``before = confinement.snapshot()`` and ``confinement.changed(before)``, a line naming what changed in them.

``SandboxPolicy(network=False, proxied=True)`` with ``confinement.argv(argv, proxy=SOCKET)``: the command runs in
a network namespace too, whose only way out is ``relay.py`` (127.0.0.1:3128 inside it) to the caller's proxy
(``netproxy.NetworkProxy``, which decides per host); ``HTTP(S)_PROXY`` point at the relay.

How: ``argv`` prefixes ``python -I -S launch.py SPEC --``; the launcher applies the ruleset to itself and execs
the command (no code runs between fork and exec in this process, which is threaded). It fails closed with
exit code 126. ``landlock_abi()`` / ``sandbox_support()`` ask the kernel; setting the environment variable
``AMPLIFIER_SANDBOX_FORCE_UNAVAILABLE=1`` makes them answer "no Landlock" (for tests of that path only).
"""

from __future__ import annotations

from typing import Any

from ..sandbox_modes import MODES, SandboxMode
from .landlock import FORCE_UNAVAILABLE_ENV
from .launch import EXIT_CANNOT_CONFINE
from .namespace import FORCE_NO_NAMESPACE_ENV
from .policy import (
    WRITABLE_DEVICES,
    Confinement,
    SandboxPolicy,
    SandboxSupport,
    confine,
    landlock_abi,
    namespace_support,
    sandbox_support,
)

__all__ = [
    "EXIT_CANNOT_CONFINE", "FORCE_NO_NAMESPACE_ENV", "FORCE_UNAVAILABLE_ENV", "MODES", "WRITABLE_DEVICES",
    "Confinement", "SandboxMode",
    "SandboxPolicy", "SandboxSupport", "confine", "create_confined_subprocess_exec", "landlock_abi",
    "namespace_support", "sandbox_support",
]


async def create_confined_subprocess_exec(confinement: Confinement, program: str, *args: str,
                                          **kwargs: Any) -> Any:
    """``asyncio.create_subprocess_exec`` of ``program args`` under ``confinement`` (same keyword arguments)."""
    import asyncio

    argv = confinement.argv([program, *args])
    return await asyncio.create_subprocess_exec(*argv, **kwargs)
