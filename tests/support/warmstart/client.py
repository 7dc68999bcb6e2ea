"""The `amplifier` (or `python -m MODULE ...`) a warm test run starts, written out by warmstart/__init__.py with
SOCKET, REAL and KIND filled in and run as `python -IS`, which imports almost nothing. It asks the warm-start
server for a child that runs the program with this process's argv, environment, working directory, stdin, stdout
and stderr, passes on the signals it gets (Ctrl-C in a terminal, a test's SIGINT or SIGTERM), and exits as the
child did: same code, or same signal. Its resource limits and umask go along (a test may limit the file size the
process may write). Without the server, or when the server declines, it becomes the real program (exec).

It imports only C modules (_socket, _signal, marshal): json, socket and signal would cost it 35 ms of CPU at every
launch, more than the rest of its work. The request is a marshalled dict; the server answers in text lines:
`pid N`, then `exit N` or `signal N` (or `decline REASON` at once)."""

import _signal
import _socket
import marshal
import os
import resource
import struct
import sys

SOCKET = ""  # filled in
REAL = ""  # filled in: the installed console script
KIND = "amplifier"  # filled in: "python" for the launcher standing for `python -m MODULE ...`

FORWARDED = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP, _signal.SIGQUIT, _signal.SIGUSR1, _signal.SIGUSR2,
             _signal.SIGWINCH)


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
        _signal.signal(number, forward)
    try:
        for fd in (0, 1, 2):
            os.fstat(fd)
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        conn.connect(SOCKET)
    except OSError:
        cold()
        return
    limits = {name: resource.getrlimit(getattr(resource, name)) for name in dir(resource) if name.startswith("RLIMIT_")}
    mask = os.umask(0o22)
    os.umask(mask)
    body = marshal.dumps({"kind": KIND, "argv": sys.argv[1:], "env": dict(os.environ), "cwd": os.getcwd(),
                          "rlimits": limits, "umask": mask})
    conn.sendmsg([b"R"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, struct.pack("3i", 0, 1, 2))])
    conn.sendall(struct.pack("!I", len(body)) + body)
    received = [b""]

    def reply() -> tuple[str, str]:
        """The next line of the server: (word, rest). A signal during recv runs `forward`, then recv goes on."""
        while b"\n" not in received[0]:
            chunk = conn.recv(256)
            if not chunk:
                return "gone", ""
            received[0] += chunk
        line, _, received[0] = received[0].partition(b"\n")
        word, _, rest = line.decode().partition(" ")
        return word, rest

    word, value = reply()
    if word != "pid":
        conn.close()
        cold()
        return
    child.append(int(value))
    for number in pending:
        forward(number, None)
    word, value = reply()
    if word == "signal":
        for number in FORWARDED:
            _signal.signal(number, _signal.SIG_DFL)
        os.kill(os.getpid(), int(value))
        os._exit(128 + int(value))
    os._exit(int(value) if word == "exit" else 1)


main()
