"""``python -I -S .../process_guard.py PARENT_PID COMMAND ARGS...``: exec COMMAND so that it gets SIGTERM when
amplifier dies (Linux ``PR_SET_PDEATHSIG``, kept across exec). Run as a file, not with ``-m``, so starting it
imports only the standard library, not this package.

A stdio server normally exits when its stdin closes; this covers the ones that do not, when amplifier itself
is killed (SIGKILL leaves no chance to clean up). The server is its own process-group leader (the SDK starts
it in a new session), so signals at the terminal never reach it directly.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def main(argv: list[str]) -> int:
    if len(argv) < 2 or not argv[0].isdigit():
        print("usage: python -I -S process_guard.py PARENT_PID COMMAND [ARGS...]", file=sys.stderr)
        return 2
    parent, argv = int(argv[0]), argv[1:]
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: stdin closing is the only signal the server gets
    if os.getppid() != parent:  # amplifier died before the guard was armed
        return 1
    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        print(f"cannot start {argv[0]}: {error.strerror or error}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
