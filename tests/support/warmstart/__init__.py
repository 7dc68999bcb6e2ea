"""`amplifier` for tests that start it as a process, without paying its imports each time.

Every `amplifier` process spends 2-3 s of CPU importing the provider SDKs, pydantic, the terminal libraries and the
kernel; the e2e and terminal tests start hundreds. `amplifier_command()` returns a small launcher instead: a
warm-start server (server.py; one per test run, shared by its xdist workers) has imported all that once and forks
a child per launch, which takes the launcher's argv, environment, cwd, stdin, stdout and stderr (a pipe or a real
pseudo-terminal alike) and runs the same `main()` the console script runs. Signals to the launcher reach the child,
and the launcher exits with the child's code or dies of its signal, so a test sees one process, as with the real
command.

What it cannot reproduce it leaves to the real command: a launch whose environment changes how an interpreter
starts (PYTHONPATH, PYTHONIOENCODING, the locale, ... : server.STARTUP_ONLY), or what the server read while
preloading (the certificate store's variables: server.PRELOAD_READS), execs the console script. Tests about
startup itself (what is imported, how fast) use `real_amplifier_command()`. `AMPLIFIER_TEST_COLD=1` turns warm
starts off for a whole run."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

_HERE = Path(__file__).parent
_started: list[str] = []  # the launcher's path once the server runs in this process
_failed: list[bool] = []
_keepalives: list[object] = []  # connections to a shared server, open while this process lives


def real_amplifier_command() -> list[str]:
    """The console script installed beside this interpreter (what users run), else `python -m amplifier_cli`."""
    script = Path(sys.executable).with_name("amplifier")
    return [str(script)] if script.exists() else [sys.executable, "-m", "amplifier_cli"]


def amplifier_command() -> list[str]:
    """`amplifier` as a test starts it: the warm launcher, or the real command when warm starts are off."""
    return real_amplifier_command() if os.environ.get("AMPLIFIER_TEST_COLD") else warm_amplifier_command()


def warm_amplifier_command() -> list[str]:
    """The warm launcher (the server starts on first use), or the real command when it could not start."""
    real = real_amplifier_command()
    if len(real) != 1 or _failed:
        return real
    if not _started:
        try:
            _start_or_join(real[0])
        except (OSError, subprocess.SubprocessError, RuntimeError):
            _failed.append(True)
            return real
    return [_started[0]]


def python_module_command(module: str) -> list[str]:
    """argv prefix for `python -m MODULE` (an MCP server a test configures): the warm `python` launcher for the
    modules the server preloads (server.MODULES), else this interpreter."""
    if amplifier_command() != _started[:1]:  # warm starts are off, or the server did not start
        return [sys.executable, "-m", module]
    return [str(Path(_started[0]).with_name("python")), "-m", module]


def _start_or_join(real_script: str) -> None:
    """One server for all the workers of a pytest-xdist run (its preload costs 6-7 s of CPU): the first worker to
    need it starts it, the others wait on a lock until it is ready. Each worker holds a connection to it; the
    server ends when the last one closes (and its starter is gone). Outside xdist, a server of this process's own."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run or not run.isalnum():
        _start(real_script, Path(tempfile.mkdtemp(prefix="amplifier-warm-")), shared=False)
        return
    import fcntl

    folder = Path(tempfile.gettempdir()) / f"amplifier-warm-{run}"
    folder.mkdir(mode=0o700, exist_ok=True)
    with open(folder / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when this block ends: the launchers exist by then, or never will
        if (folder / "failed").exists():
            raise RuntimeError("the shared warm-start server did not start")
        if not (folder / "python").exists():
            try:
                _start(real_script, folder, shared=True)
            except BaseException:
                (folder / "failed").touch()
                raise
        else:
            _started.append(str(folder / "amplifier"))
        _keep_alive(folder / "s")


def _keep_alive(socket_path: Path) -> None:
    """A connection to the server that lasts as long as this process: the server ends when none is left."""
    import socket

    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(str(socket_path))
    connection.sendall(b"K")
    _keepalives.append(connection)


def _start(real_script: str, folder: Path, *, shared: bool) -> None:
    socket_path = folder / "s"
    server = subprocess.Popen([sys.executable, str(_HERE / "server.py"), str(socket_path), real_script,
                               *(["--shared"] if shared else [])], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              cwd=folder, start_new_session=shared)  # shared: outlives its starter
    assert server.stdout is not None
    if server.stdout.readline() != b"ready\n":
        server.kill()
        raise RuntimeError("the warm-start server did not start")
    launcher = folder / "amplifier"
    for path, real, kind in ((launcher, real_script, "amplifier"), (folder / "python", sys.executable, "python")):
        code = (_HERE / "client.py").read_text(encoding="utf-8")
        code = code.replace('SOCKET = ""  # filled in', f"SOCKET = {str(socket_path)!r}", 1)
        code = code.replace('REAL = ""  # filled in: the installed console script', f"REAL = {real!r}", 1)
        code = code.replace('KIND = "amplifier"  # filled in', f"KIND = {kind!r}  # filled in", 1)
        path.write_text(f"#!{sys.executable} -IS\n{code}", encoding="utf-8")
        path.chmod(0o755)

    def stop() -> None:
        if server.stdin is not None:
            server.stdin.close()  # the server ends (and kills what it still runs) when this pipe closes
        if shared:
            return  # other workers may still use it: it ends with the last one, and removes its folder
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(folder, ignore_errors=True)

    atexit.register(stop)
    _started.append(str(launcher))
