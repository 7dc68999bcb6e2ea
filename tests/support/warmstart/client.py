"""The `amplifier` (or `python -m MODULE ...`) a warm test run starts, written out by warmstart/__init__.py with
SOCKET, REAL and KIND filled in and run as `python -IS`, which imports almost nothing. It asks the warm-start
server for a child that runs the program with this process's argv, environment, working directory, stdin, stdout
and stderr, passes on the signals it gets (Ctrl-C in a terminal, a test's SIGINT or SIGTERM), and exits as the
child did: same code, or same signal. Its resource limits and umask go along (a test may limit the file size the
process may write). Without the server, or when the server declines, it becomes the real program (exec)."""

import json
import os
import resource
import signal
import socket
import struct
import sys

SOCKET = ""  # filled in
REAL = ""  # filled in: the installed console script
KIND = "amplifier"  # filled in: "python" for the launcher standing for `python -m MODULE ...`

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2,
             signal.SIGWINCH)


def cold() -> None:
    os.execv(REAL, [REAL, *sys.argv[1:]])


def main() -> None:
    child = []
    pending = []

    def forward(number, _frame):
        if child:
            try:
                os.kill(child[0], number)
            except OSError:
                pass
        else:
            pending.append(number)

    for number in FORWARDED:
        signal.signal(number, forward)
    try:
        for fd in (0, 1, 2):
            os.fstat(fd)
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(SOCKET)
    except OSError:
        cold()
        return
    limits = {name: resource.getrlimit(getattr(resource, name)) for name in dir(resource) if name.startswith("RLIMIT_")}
    mask = os.umask(0o22)
    os.umask(mask)
    body = json.dumps({"kind": KIND, "argv": sys.argv[1:], "env": dict(os.environ), "cwd": os.getcwd(),
                       "rlimits": limits, "umask": mask}).encode()
    conn.sendmsg([b"R"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("3i", 0, 1, 2))])
    conn.sendall(struct.pack("!I", len(body)) + body)
    reader = conn.makefile("rb")  # a signal during a read runs `forward` and the read goes on (PEP 475)
    reply = json.loads(reader.readline() or b'{"decline": "no answer"}')
    if "decline" in reply:
        conn.close()
        cold()
        return
    child.append(reply["pid"])
    for number in pending:
        forward(number, None)
    ended = json.loads(reader.readline() or b'{"exit": 1}')
    if "signal" in ended:
        for number in FORWARDED:
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), ended["signal"])
        os._exit(128 + ended["signal"])
    os._exit(ended["exit"])


main()
