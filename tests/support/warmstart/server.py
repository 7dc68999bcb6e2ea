"""The warm-start server: one per test run (its pytest-xdist workers share it) or per test process. It imports the
heavy libraries `amplifier` needs once, then forks a child for each `amplifier` (or MCP server) a test starts, so
the child begins with those imports done.

Run as `python server.py SOCKET REAL_SCRIPT [--shared]`; it serves until its stdin (a pipe from the worker that
started it) has closed and no worker holds a keepalive connection any more; `--shared` also removes its folder.
A client (client.py) sends its argv, environment and working directory and hands over its stdin, stdout and
stderr; the child takes them as its own, runs the console script's `main()`, and exits as the real process would.
The server reports the child's pid, then how it ended; when a client disappears (killed), its child is killed.

One thread only, so a fork never copies a lock another thread holds."""

from __future__ import annotations

import marshal
import os
import selectors
import signal
import socket
import struct
import sys
from typing import Any

# What `amplifier` processes import, and what takes seconds of it: the provider SDKs (anthropic alone imports ~3,500
# modules) and what they import lazily on first use (their HTTP stack, resources, streaming helpers), pydantic, the
# terminal libraries, the MCP and OpenTelemetry SDKs, the shell parser; then every module of the kernel, the support
# package, the app and the bundled modules (PACKAGES, walked). Imports only: nothing here reads the environment or
# the working directory when imported (the app's settings, paths and limits are read when used).
PRELOAD = (
    "anthropic", "anthropic.resources", "anthropic.lib.streaming", "openai", "openai.resources",
    # openai's packages export lazily: the modules themselves (0.3 s for the Responses API on a child's first call)
    "openai.resources.responses.responses", "openai.resources.chat.completions.completions",
    "openai.lib.streaming.responses", "openai.lib.streaming.chat", "jsonschema", "requests",
    "httpx2", "httpcore2", "h11", "anyio._backends._asyncio", "truststore", "pydantic",
    "yaml", "typer", "typer._adapters", "typer._click.decorators", "click", "rich.console", "rich.markdown",
    "rich.table", "rich.live", "rich._emoji_codes",
    "prompt_toolkit", "prompt_toolkit.shortcuts", "prompt_toolkit.input.vt100",
    "prompt_toolkit.key_binding.bindings.search", "anyio._core._subprocesses", "mcp", "mcp.client.stdio",
    "mcp.client.streamable_http", "opentelemetry.sdk.trace", "opentelemetry.sdk.metrics",
    "opentelemetry.exporter.otlp.proto.http.trace_exporter", "opentelemetry.exporter.otlp.proto.http.metric_exporter",
    "tree_sitter", "tree_sitter_bash", "concurrent.futures.thread", "encodings.idna", "encodings.utf_8_sig",
)
PACKAGES = ("amplifier_core", "amplifier_support", "amplifier_cli")
# The MCP servers tests start as `python -m NAME` (the warm `python` launcher): the SDK-written test server and the
# reference servers. Their imports (the MCP SDK's server side, about 2 s of CPU) are done here once.
MODULES = ("mcptestserver", "mcp_server_time", "mcp_server_git", "amplifier_module_tool_mcp.echo_server")
MODULE_PRELOAD = ("mcptestserver.server", "mcp_server_time.server", "mcp_server_git.server", "mcp.server.stdio",
                  "mcp.server.streamable_http", "mcp.server.sse", "uvicorn", "argparse")
SKIPPED = ("amplifier_core.pytest_plugin", "amplifier_core.validation.behavioral")  # test-time code: imports pytest
# Variables read only when an interpreter starts: a client whose environment differs in one gets a cold start.
STARTUP_ONLY = ("PYTHONPATH", "PYTHONHOME", "PYTHONSAFEPATH", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUTF8",
                "PYTHONWARNINGS", "PYTHONDEVMODE", "PYTHONOPTIMIZE", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX",
                "PYTHONTRACEMALLOC", "PYTHONFAULTHANDLER", "PYTHONNOUSERSITE", "PYTHONUSERBASE", "PYTHONPLATLIBDIR",
                "LANG", "LC_ALL", "LC_CTYPE", "COVERAGE_PROCESS_START")
# What the preload reads from the environment (the certificate store of the shared TLS context, see _build_tls):
# an `amplifier` client whose environment differs in one gets a cold start too.
PRELOAD_READS = ("SSL_CERT_FILE", "SSL_CERT_DIR")
# ... but for the MCP servers (an SDK gives them a minimal environment): PYTHONPATH is put on sys.path in the child,
# a missing locale means the UTF-8 stdio they use anyway, and the rest changes nothing they do.
NOT_FOR_MODULES = ("PYTHONPATH", "LANG", "LC_ALL", "LC_CTYPE", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX",
                   "PYTHONHASHSEED", "PYTHONNOUSERSITE", "PYTHONUSERBASE")
_LENGTH = struct.Struct("!I")


def _preload(installed: Any) -> None:
    """Import everything children use; ``installed`` are the installed modules' entry points (by module id)."""
    import importlib

    bundled = sorted({entry.module for entry in installed.values()})
    sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/support: mcptestserver
    for name in (*PRELOAD, *_walk(PACKAGES), *_walk(bundled), *MODULE_PRELOAD):
        try:
            importlib.import_module(name)
        except Exception:  # a missing library only makes its children start colder
            pass
    sys.path.pop()
    _build_sdk_models()
    _build_tls_contexts()
    _build_read_only_messages()
    _probe_namespaces()
    import gc

    gc.collect()
    gc.freeze()  # the children share these pages instead of copying them when the collector walks them


def _build_sdk_models() -> None:
    """Build the pydantic validators and serializers of the SDKs' response and stream-event models. The SDKs defer
    that to first use, and every child would build them again (50-80 ms) on its first answer."""
    import typing

    def classes(annotation: Any) -> list[type]:
        if isinstance(annotation, type):
            return [annotation]
        return [cls for argument in typing.get_args(annotation) for cls in classes(argument)]

    try:
        from anthropic.types import Message, RawMessageStreamEvent
        from openai.types.chat import ChatCompletion, ChatCompletionChunk
        from openai.types.responses import Response, ResponseStreamEvent

        for annotation in (RawMessageStreamEvent, Message, ChatCompletion, ChatCompletionChunk, ResponseStreamEvent,
                           Response):
            for model in classes(annotation):
                model.model_rebuild()  # type: ignore[attr-defined]
    except Exception:  # an SDK without these names: its children build them themselves
        pass


def _build_tls_contexts() -> None:
    """The providers' one TLS context per process (provider_support.sdk_http_client): loading the certificate
    store is 50 ms of CPU that every child making a request paid again."""
    try:
        import anthropic
        import openai

        from amplifier_support.provider_support import sdk_http_client

        for sdk in (anthropic, openai):
            sdk_http_client(sdk.DefaultAsyncHttpxClient)
    except Exception:  # children build their own
        pass


def _scan_entry_points(real_script: str) -> Any:
    """The kernel's kept scan of the installed modules (loader.installed_entry_points), made with the sys.path an
    `amplifier` child has (see _program): the children reuse it while no folder on it changes."""
    from amplifier_core.loader import installed_entry_points

    first = sys.path[0]
    sys.path[0] = os.path.dirname(real_script)
    try:
        return installed_entry_points()
    finally:
        sys.path[0] = first


def _probe_namespaces() -> None:
    """tool-bash asks once per process whether a user + mount namespace can be made (a `python` child, 30 ms):
    the children are forked from here and could make one exactly when this process can."""
    try:
        from amplifier_support.sandbox.policy import namespace_support

        namespace_support()
    except Exception:  # children probe themselves
        pass


def _build_read_only_messages() -> None:
    """The kernel's read-only message classes (read_only_messages), built on a child's first stored message:
    one message holding a block of every kind builds them all here."""
    try:
        from amplifier_core.read_only_messages import read_only_model

        read_only_model({"role": "assistant", "content": [
            {"type": "text", "text": ""}, {"type": "thinking", "thinking": ""},
            {"type": "redacted_thinking", "data": ""}, {"type": "tool_call", "id": "", "name": "", "input": {}},
            {"type": "tool_result", "tool_call_id": "", "output": ""}, {"type": "image", "source": {}},
            {"type": "reasoning", "content": [], "summary": []}]})
    except Exception:  # children build them themselves
        pass


def _walk(packages: Any) -> list[str]:
    """Every module of ``packages`` (the packages themselves first), but for SKIPPED."""
    import importlib
    import pkgutil

    names: list[str] = []
    for package in packages:
        try:
            module = importlib.import_module(package)
        except Exception:  # a package that does not import is not preloaded; its children import it themselves
            continue
        names.append(package)
        for info in pkgutil.walk_packages(getattr(module, "__path__", []), prefix=f"{package}."):
            if not info.name.startswith(SKIPPED) and not info.name.rsplit(".", 1)[-1].startswith("test"):
                names.append(info.name)
    return names


def _read_request(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    message, ancillary, _flags, _address = conn.recvmsg(1, socket.CMSG_SPACE(3 * 4))
    fds: list[int] = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.extend(struct.unpack(f"{len(data) // 4}i", data[: len(data) - len(data) % 4]))
    if message == b"K" and not fds:  # a worker's keepalive connection: nothing more comes on it
        return {"kind": "keepalive"}, []
    try:
        (size,) = _LENGTH.unpack(_receive(conn, _LENGTH.size))
        body = _receive(conn, size)
        if message != b"R" or len(fds) != 3:
            raise ConnectionError("not a request")
        request = marshal.loads(body)
        if not isinstance(request, dict):
            raise ValueError("not a request")
        return request, fds
    except BaseException:
        for fd in fds:  # what a broken request handed over is not kept open
            os.close(fd)
        raise


def _receive(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError("client left")
        data += chunk
    return data


def _send(conn: socket.socket, word: str, value: object) -> None:
    """One line to a client: `pid N`, `exit N`, `signal N` or `decline REASON` (client.py reads these)."""
    try:
        conn.sendall(f"{word} {value}\n".encode())
    except OSError:
        pass


def _decline_reason(request: dict[str, Any]) -> str | None:
    env = request.get("env") or {}
    startup_only = (*STARTUP_ONLY, *PRELOAD_READS)
    if request.get("kind") == "python":
        argv = request.get("argv") or []
        if len(argv) < 2 or argv[0] != "-m" or argv[1] not in MODULES:
            return "not `-m` with a preloaded module"
        startup_only = tuple(name for name in STARTUP_ONLY if name not in NOT_FOR_MODULES)
    for name in startup_only:
        if env.get(name) != os.environ.get(name):
            return f"{name} differs"
    return None


def _std_streams(env: dict[str, str]) -> None:
    """New sys.stdin/stdout/stderr over fds 0-2, built as the interpreter builds them at startup."""
    import io

    unbuffered = bool(env.get("PYTHONUNBUFFERED"))
    encoding = sys.stdout.encoding if sys.stdout is not None else "utf-8"
    errors = sys.stdout.errors if sys.stdout is not None else "strict"

    def stream(fd: int, mode: str, stream_errors: str, line_buffering: bool) -> io.TextIOWrapper:
        raw = io.FileIO(fd, mode, closefd=False)
        buffered: Any = raw if (unbuffered and mode == "w") else (
            io.BufferedWriter(raw) if mode == "w" else io.BufferedReader(raw))
        return io.TextIOWrapper(buffered, encoding=encoding, errors=stream_errors, newline="\n",
                                line_buffering=line_buffering, write_through=unbuffered and mode == "w")

    sys.stdin = sys.__stdin__ = stream(0, "r", errors, False)
    sys.stdout = sys.__stdout__ = stream(1, "w", errors, os.isatty(1))
    sys.stderr = sys.__stderr__ = stream(2, "w", "backslashreplace", True)


def _exit_code(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    try:
        print(value, file=sys.stderr)
    except Exception:
        pass
    return 1


def _run_child(request: dict[str, Any], fds: list[int], real_script: str) -> None:
    """In the forked child: become the process the client stands for, run `amplifier`, exit. Never returns."""
    code = 1
    die_by: int | None = None
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        for number in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1,
                       signal.SIGUSR2, signal.SIGWINCH):
            signal.signal(number, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in enumerate(fds):
            os.dup2(fd, target, inheritable=True)
        os.closerange(3, 1 << 16)  # the server's sockets and the received copies
        os.chdir(request["cwd"])
        os.umask(request["umask"])
        import resource

        for name, (soft, hard) in request["rlimits"].items():
            try:
                resource.setrlimit(getattr(resource, name), (soft, hard))
            except (AttributeError, ValueError, OSError):
                pass  # a limit this server may not raise again stays lower, as it already is
        os.environ.clear()
        os.environ.update(request["env"])
        _std_streams(request["env"])
        main = _program(request, real_script)
        try:
            main()
            code = 0
        except SystemExit as exit_:
            code = _exit_code(exit_.code)
        except KeyboardInterrupt:
            sys.excepthook(*sys.exc_info())
            die_by = signal.SIGINT
        except BaseException:
            sys.excepthook(*sys.exc_info())
            code = 1
        import atexit
        import threading

        threading._shutdown()  # type: ignore[attr-defined]  # as the interpreter does before exiting
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                code = 120 if code == 0 else code
    finally:
        if die_by is not None:
            signal.signal(die_by, signal.SIG_DFL)
            os.kill(os.getpid(), die_by)
        os._exit(code)


def _program(request: dict[str, Any], real_script: str) -> Any:
    """Set sys.argv and sys.path as the real command's interpreter would, and return what it runs."""
    if request.get("kind") == "python":  # `python -m MODULE ARGS`: sys.path starts with the cwd, then PYTHONPATH
        import runpy

        module, arguments = request["argv"][1], request["argv"][2:]
        extra = [entry for entry in request["env"].get("PYTHONPATH", "").split(os.pathsep) if entry]
        sys.path[0:1] = [request["cwd"], *extra]
        sys.argv = ["-m", *arguments]
        return lambda: runpy.run_module(module, run_name="__main__", alter_sys=True)
    sys.argv = [real_script, *request["argv"]]
    sys.path[0] = os.path.dirname(real_script)  # where a script's interpreter starts looking, not this folder
    from amplifier_cli.__main__ import main

    return main


class Server:
    def __init__(self, path: str, real_script: str) -> None:
        self.real_script = real_script
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(64)
        self.selector = selectors.DefaultSelector()
        self.children: dict[int, socket.socket] = {}
        self.wake_read, wake_write = os.pipe()
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so the wakeup fd hears of exits
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.wake_read, selectors.EVENT_READ, "reap")
        self.selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "parent")
        self.keepalives = 0  # test workers holding a connection (a shared server): it ends when none is left
        self.parent_gone = False

    def serve(self) -> None:
        while True:
            for key, _events in self.selector.select():
                if key.data == "accept":
                    self._accept()
                elif key.data == "reap":
                    os.read(self.wake_read, 512)
                    self._reap()
                elif key.data == "parent":
                    if not os.read(sys.stdin.fileno(), 512):
                        self.selector.unregister(key.fileobj)
                        self.parent_gone = True
                        if self.keepalives == 0:
                            self._stop()
                            return
                elif key.data == "keepalive":
                    if not self._still_there(key.fileobj):  # type: ignore[arg-type]
                        self.keepalives -= 1
                        if self.keepalives == 0 and self.parent_gone:
                            self._stop()
                            return
                else:
                    self._client_left(key.data, key.fileobj)  # type: ignore[arg-type]

    def _accept(self) -> None:
        conn, _ = self.listener.accept()
        conn.settimeout(10)
        try:
            request, fds = _read_request(conn)
        except (OSError, ValueError, EOFError, TypeError):
            conn.close()
            return
        if request.get("kind") == "keepalive":
            conn.setblocking(False)
            self.selector.register(conn, selectors.EVENT_READ, "keepalive")
            self.keepalives += 1
            return
        reason = _decline_reason(request)
        if reason is not None:
            for fd in fds:
                os.close(fd)
            _send(conn, "decline", reason)
            conn.close()
            return
        pid = os.fork()
        if pid == 0:
            _run_child(request, fds, self.real_script)
        for fd in fds:
            os.close(fd)
        self.children[pid] = conn
        _send(conn, "pid", pid)
        conn.setblocking(False)
        self.selector.register(conn, selectors.EVENT_READ, pid)
        self._reap()  # a child that ended before its connection was registered

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            if os.WIFSIGNALED(status):
                _send(conn, "signal", os.WTERMSIG(status))
            else:
                _send(conn, "exit", os.waitstatus_to_exitcode(status))
            try:
                self.selector.unregister(conn)
            except (KeyError, ValueError):
                pass  # its client had left
            conn.close()

    def _client_left(self, pid: int, conn: socket.socket) -> None:
        try:
            if conn.recv(64):
                return  # clients send nothing more; ignore stray bytes
        except BlockingIOError:
            return
        except OSError:
            pass
        self.selector.unregister(conn)
        try:
            os.killpg(pid, signal.SIGKILL)  # its client was killed: so is the child, as the real process would be
        except OSError:
            pass

    def _still_there(self, conn: socket.socket) -> bool:
        """False (and the connection closed) once a keepalive connection's worker has gone."""
        try:
            if conn.recv(64):
                return True
        except BlockingIOError:
            return True
        except OSError:
            pass
        self.selector.unregister(conn)
        conn.close()
        return False

    def _stop(self) -> None:
        for pid in list(self.children):
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass


def main() -> None:
    path, real_script, shared = sys.argv[1], sys.argv[2], sys.argv[3:] == ["--shared"]
    _preload(_scan_entry_points(real_script))
    server = Server(path, real_script)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    server.serve()
    if shared:  # no single worker owns it: the last one to leave is gone, so the server clears its own folder
        import shutil

        shutil.rmtree(os.path.dirname(path), ignore_errors=True)


if __name__ == "__main__":
    main()
