"""Exec launcher: ``python -I -S launch.py SPEC -- PROGRAM ARGS...`` confines itself, then execs PROGRAM.

SPEC is JSON ``{"write": [paths], "deny_network": bool, "read_only": [paths], "namespace": bool,
"strict": bool, "placeholders": [[path, "dir"|"file"]], "lock": path, "proxy": socket path}``. The launcher sets
no_new_privs; with ``namespace`` it enters a user + mount namespace and binds each ``read_only`` path read-only
(``namespace.py``; a ``placeholders`` place that does not exist is first made as an empty stand-in, under a
shared flock of ``lock``; when that fails it says so on stderr and goes on, unless ``strict``: then it refuses as
below). With ``proxy`` the namespace is a network namespace too, whose only way out is ``relay.py`` to that
socket (the app's proxy), and ``HTTP(S)_PROXY`` point at the relay. Then it enforces a Landlock ruleset (writes only
beneath ``write``; TCP refused with ``deny_network``) and a seccomp filter (``seccomp.py``: no setuid/setgid
files; every IP socket refused with ``deny_network``), drops every capability (root's too, and those the user
namespace gave) and replaces itself with PROGRAM, which inherits the confinement, as does everything PROGRAM
starts. It fails closed: when the ruleset cannot be enforced it prints why and exits 126 without running
PROGRAM.

A separate process rather than a ``preexec_fn``: code between fork and exec in a threaded Python (the app
warms up SDK imports in threads) can deadlock, and asyncio's subprocess transports run fork_exec themselves.
Costs one interpreter start (``python -I -S`` + ctypes, measured by bench/sandbox_launch.py).
"""

from __future__ import annotations

import json
import os
import sys

EXIT_CANNOT_CONFINE = 126


def _start_relay(relay: object, landlock: object, proxy: str) -> None:
    relay.loopback_up()  # type: ignore[attr-defined]
    relay.start(proxy, landlock.drop_capabilities)  # type: ignore[attr-defined]


def main(argv: list[str]) -> int:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import landlock  # this directory's landlock.py, namespace.py, relay.py and seccomp.py; stdlib only
    import namespace
    import relay
    import seccomp

    if len(argv) < 3 or argv[1] != "--":
        print("amplifier sandbox: usage: launch.py SPEC -- PROGRAM [ARGS...]", file=sys.stderr)
        return 2
    try:
        spec = json.loads(argv[0])
        writable = [str(path) for path in spec["write"]]
        deny_network = bool(spec.get("deny_network", False))
        read_only = [str(path) for path in spec.get("read_only", [])]
        use_namespace = bool(spec.get("namespace", False)) and bool(read_only)
        strict = bool(spec.get("strict", False))
        placeholders = [(str(path), str(kind)) for path, kind in spec.get("placeholders", [])]
        lock = str(spec["lock"]) if spec.get("lock") else None
        proxy = str(spec["proxy"]) if spec.get("proxy") else None  # the app's proxy socket: network through it
        use_namespace = use_namespace or proxy is not None
    except (ValueError, KeyError, TypeError) as error:
        print(f"amplifier sandbox: bad SPEC: {error}", file=sys.stderr)
        return 2
    abi, why = landlock.abi_version()
    if abi < 1:
        print(f"amplifier sandbox: refusing to run unconfined: {why}", file=sys.stderr)
        return EXIT_CANNOT_CONFINE
    try:
        landlock.set_no_new_privs()
        if use_namespace:  # before Landlock, which refuses every mount
            try:
                namespace.protect(read_only, writable, placeholders, lock,
                                  network=(lambda: _start_relay(relay, landlock, proxy)) if proxy else None)
            except OSError as error:
                if strict or proxy is not None or getattr(error, "entered", False):
                    raise
                if isinstance(error, namespace.NamespaceError):  # else: started inside a sandbox (it may not
                    # even map its uid), whose read-only mounts it keeps
                    print("amplifier sandbox: protected places are not read-only for this command: "
                          f"{error.strerror}", file=sys.stderr)
        if proxy is not None:  # the namespace holds no interface but lo: the relay is the only way out
            address = f"http://127.0.0.1:{relay.PORT}"
            for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
                os.environ[name] = address
            for name in ("NO_PROXY", "no_proxy"):
                os.environ.pop(name, None)
            deny_network = False
        landlock.restrict_self(abi, writable, deny_network)
        landlock.drop_capabilities()
        if seccomp.supported():  # elsewhere the caller reported the gap
            seccomp.install(deny_network)
    except OSError as error:
        print(f"amplifier sandbox: refusing to run unconfined: {error}", file=sys.stderr)
        return EXIT_CANNOT_CONFINE
    program = argv[2:]
    try:
        os.execvp(program[0], program)
    except OSError as error:
        print(f"amplifier sandbox: cannot run {program[0]}: {error.strerror}", file=sys.stderr)
        return 127
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
