"""The one way out of a command's network namespace: 127.0.0.1:PORT inside it, relayed to the app's proxy.

A command whose network is proxied runs in a network namespace of its own, where only a loopback interface
exists. The launcher brings that interface up and forks this relay, which listens on 127.0.0.1:PORT there and
copies each connection to the proxy's unix socket (a file, so it is reachable from inside the namespace); the
command gets ``HTTP(S)_PROXY=http://127.0.0.1:PORT``. The proxy decides which hosts a connection may reach.

The relay is forked before Landlock, drops every capability, leaves the command's process group (which the
caller watches for leftover processes) and dies with the command's first process (``PR_SET_PDEATHSIG``): what
that process leaves running in the background has no network after it ends.
Standard library only (the exec launcher imports it with ``python -I -S``).
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import signal
import socket
import struct
import threading
from collections.abc import Callable

PORT = 3128  # the namespace is the command's own: no other listener can hold the port
SIOCGIFFLAGS, SIOCSIFFLAGS = 0x8913, 0x8914
IFF_UP, IFF_RUNNING = 0x1, 0x40
PR_SET_PDEATHSIG = 1
_CHUNK = 65536


def loopback_up() -> None:
    """Bring up ``lo`` in this (new) network namespace: it starts down."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(probe.fileno(), SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(probe.fileno(), SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP | IFF_RUNNING))


def _pump(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(_CHUNK):
            target.sendall(data)
    except OSError:
        pass
    finally:
        try:
            target.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def _serve(client: socket.socket, proxy_socket: str) -> None:
    try:
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(proxy_socket)
    except OSError:
        client.close()
        return
    back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
    back.start()
    _pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _relay(listener: socket.socket, proxy_socket: str) -> None:
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_serve, args=(client, proxy_socket), daemon=True).start()


def start(proxy_socket: str, drop_capabilities: Callable[[], None] | None = None) -> None:
    """Listen on 127.0.0.1:PORT and fork the relay; the caller (the launcher) goes on to confine and exec."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", PORT))
    listener.listen(64)
    parent = os.getpid()
    if os.fork() != 0:
        listener.close()
        return
    try:  # the relay: no stdio (the app waits for the command's output to end), no capabilities, dies with it
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(0)
        os.setsid()  # out of the command's process group: its end is the command's, not the group's
        null = os.open(os.devnull, os.O_RDWR)
        for descriptor in (0, 1, 2):
            os.dup2(null, descriptor)
        os.close(null)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the command's group: the command decides
        if drop_capabilities is not None:
            drop_capabilities()
        _relay(listener, proxy_socket)
    finally:
        os._exit(0)
