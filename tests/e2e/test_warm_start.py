"""The warm start the e2e and terminal tests launch `amplifier` with (tests/support/warmstart) stands for the real
command: the same output and exit codes, a launch it cannot reproduce is left to the real command, and a launcher
killed with SIGKILL takes its `amplifier` with it. Its `python -m MODULE` launcher (the MCP servers tests start)
answers as `python -m` does, and leaves a module it did not preload to a real interpreter. (Resource limits:
test_store_faults limits the file size.)"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import mcptestserver
import pytest
from warmstart import python_module_command, real_amplifier_command, warm_amplifier_command

from .conftest import TIMEOUT, in_thread


def _run(e2e, command: list[str], *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    e2e.trust_now()
    return subprocess.run([*command, *args], capture_output=True, text=True, cwd=e2e.project,
                          env={**e2e.env, **(env or {})}, stdin=subprocess.DEVNULL, timeout=TIMEOUT, check=False)


@pytest.mark.parametrize("args", [("--version",), ("profile", "list"), ("profile", "show", "no-such-profile"),
                                  ("run", "--sandbox", "sometimes", "hi"), ("no-such-command-name",)])
def test_a_warm_launch_prints_and_exits_as_the_real_command(e2e, args: tuple[str, ...]) -> None:
    assert warm_amplifier_command() != real_amplifier_command()
    warm, real = _run(e2e, warm_amplifier_command(), *args), _run(e2e, real_amplifier_command(), *args)
    assert (warm.returncode, warm.stdout, warm.stderr) == (real.returncode, real.stdout, real.stderr)


def test_a_warm_python_module_launch_prints_and_exits_as_python_does(e2e) -> None:
    args = ("mcp_server_time", "--no-such-option")  # argparse: usage on stderr, exit 2 (each real run: 1.5 s)
    warm_command = python_module_command(args[0])
    assert warm_command[0] != sys.executable  # the `python` launcher: these modules are preloaded
    env = {"PYTHONPATH": str(Path(mcptestserver.__file__).parent.parent), "LANG": ""}  # as an MCP SDK leaves them
    warm = _run(e2e, warm_command, *args[1:], env=env)
    real = _run(e2e, [sys.executable, "-m", args[0]], *args[1:], env=env)
    assert (warm.returncode, warm.stdout, warm.stderr) == (real.returncode, real.stdout, real.stderr)
    assert warm.returncode == 2 and "usage:" in warm.stderr


def test_a_module_the_server_did_not_preload_runs_in_a_real_interpreter(e2e) -> None:
    (e2e.project / "probe_module.py").write_text("import sys\nprint(sys.argv[1:], 'mcp' in sys.modules)\n")
    launcher = Path(python_module_command("mcp_server_time")[0])
    result = _run(e2e, [str(launcher), "-m", "probe_module", "a", "b"])
    assert (result.returncode, result.stdout) == (0, "['a', 'b'] False\n")  # a warm child has the MCP SDK loaded


def test_a_launch_whose_interpreter_would_start_differently_runs_the_real_command(e2e) -> None:
    probe = e2e.project / "probe"
    probe.mkdir()
    (probe / "sitecustomize.py").write_text("import sys\nsys.stderr.write('PYTHONPATH-READ\\n')\n")
    result = _run(e2e, warm_amplifier_command(), "--version", env={"PYTHONPATH": str(probe)})
    assert result.returncode == 0 and "PYTHONPATH-READ" in result.stderr  # read only by a starting interpreter


def test_killing_the_launcher_kills_its_amplifier(e2e) -> None:
    ready, release = e2e.project / "ready.fifo", e2e.project / "release.fifo"
    os.mkfifo(ready)
    os.mkfifo(release)
    hold = "echo $PPID > ready.fifo && cat release.fifo"  # $PPID: the amplifier process the bash tool runs in
    e2e.profile("scripted", provider="scripted", tools=("tool-bash",),
                script=[{"tool_calls": [{"name": "bash", "arguments": {"command": hold}, "id": "c1"}]}])
    e2e.trust_now()
    launcher = subprocess.Popen([*warm_amplifier_command(), "run", "-P", "scripted", "hold"], cwd=e2e.project,
                                env=e2e.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    amplifier_pid = int(in_thread(ready.read_text, "the bash tool to start", TIMEOUT))
    assert amplifier_pid != launcher.pid  # a warm start: amplifier runs in the server's child
    watch = os.pidfd_open(amplifier_pid)
    try:
        launcher.send_signal(signal.SIGKILL)
        readable, _, _ = select.select([watch], [], [], TIMEOUT)  # a pidfd turns readable when its process ends
        assert readable, "amplifier outlived its launcher"
    finally:
        os.close(watch)
        launcher.wait(TIMEOUT)
        _release(release)


def _release(fifo) -> None:
    """Let the orphaned `cat` the killed tool left behind finish (a killed process cannot end its tools)."""
    try:
        writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return  # nobody reads it any more
    os.close(writer)


@pytest.mark.parametrize("name", ["SSL_CERT_FILE", "SSL_CERT_DIR"])
def test_a_client_whose_certificate_store_differs_from_the_servers_is_left_to_the_real_command(name: str) -> None:
    """The server builds the providers' TLS context from its own environment before forking (server.PRELOAD_READS)."""
    from warmstart import server

    same = {"kind": "amplifier", "env": dict(os.environ)}
    assert server._decline_reason(same) is None
    assert server._decline_reason({**same, "env": {**os.environ, name: "/elsewhere/ca.pem"}}) == f"{name} differs"
    mcp_server = {"kind": "python", "argv": ["-m", "mcp_server_time"], "env": {**os.environ, name: "/elsewhere"}}
    assert server._decline_reason(mcp_server) is None  # an MCP server child makes no provider requests
