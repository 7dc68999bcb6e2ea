"""The sandbox mechanism with real processes: Landlock write roots, no_new_privs, network refusal, modes,
the "no Landlock" path (forced by the documented test switch) and the launcher failing closed."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from amplifier_support.sandbox import (
    EXIT_CANNOT_CONFINE,
    FORCE_UNAVAILABLE_ENV,
    SandboxPolicy,
    confine,
    create_confined_subprocess_exec,
    landlock_abi,
    sandbox_support,
)


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside every write root (the temp dir is one, so not under it)."""
    path = Path(tempfile.mkdtemp(prefix="amplifier-sandbox-test-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def run(confinement, command: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(confinement.argv(["/bin/bash", "-c", command]), cwd=cwd, capture_output=True, text=True,
                          env=env, stdin=subprocess.DEVNULL)


def test_this_kernel_offers_landlock() -> None:
    assert landlock_abi() >= 1
    assert sandbox_support().available


def test_workspace_write_allows_writes_inside_and_refuses_outside(tmp_path: Path, outside: Path) -> None:
    confinement = confine(SandboxPolicy(), str(tmp_path))
    inside = run(confinement, "echo hi > made.txt && mkdir sub && echo ok", tmp_path)
    assert inside.returncode == 0, inside.stderr
    assert (tmp_path / "made.txt").read_text() == "hi\n"

    refused = run(confinement, f"touch {outside}/x", tmp_path)
    assert refused.returncode != 0
    assert "Permission denied" in refused.stderr
    assert not (outside / "x").exists()
    message = confinement.explain(refused.stderr, str(tmp_path))
    assert message is not None
    assert f"writing {outside}/x" in message and "workspace-write" in message


def test_extra_write_roots_are_writable(tmp_path: Path, outside: Path) -> None:
    confinement = confine(SandboxPolicy(write_roots=(str(outside),)), str(tmp_path))
    result = run(confinement, f"echo ok > {outside}/x", tmp_path)
    assert result.returncode == 0, result.stderr
    assert (outside / "x").read_text() == "ok\n"


def test_read_only_refuses_the_workspace_but_not_the_temp_dir(outside: Path) -> None:
    confinement = confine(SandboxPolicy(mode="read-only"), str(outside))
    refused = run(confinement, "echo no > here.txt", outside)
    assert refused.returncode != 0 and not (outside / "here.txt").exists()
    assert "read-only" in (confinement.explain(refused.stderr, str(outside)) or "")
    scratch = Path(tempfile.gettempdir()) / f"amplifier-sandbox-ro-{os.getpid()}"
    try:
        allowed = run(confinement, f"echo yes > {scratch} && cat /etc/hostname > /dev/null", outside)
        assert allowed.returncode == 0, allowed.stderr
        assert scratch.read_text() == "yes\n"
    finally:
        scratch.unlink(missing_ok=True)


def test_confined_commands_run_with_no_new_privs(tmp_path: Path) -> None:
    result = run(confine(SandboxPolicy(), str(tmp_path)), "grep NoNewPrivs /proc/self/status", tmp_path)
    assert result.stdout.split() == ["NoNewPrivs:", "1"]


def test_confined_commands_hold_no_capabilities_even_when_started_by_root(tmp_path: Path, outside: Path) -> None:
    """Root keeps its capabilities across no_new_privs: module loading, reboot, raw sockets, chown of any file.
    (Run by a user without capabilities, these hold trivially.)"""
    target = outside / "file"
    target.write_text("x")
    result = run(confine(SandboxPolicy(), str(tmp_path)),
                 f"grep -E '^Cap(Inh|Prm|Eff|Amb)' /proc/self/status; chown 4242 {target}", tmp_path)
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["0000000000000000"] * 4, result.stdout
    assert target.stat().st_uid != 4242


SET_ID_ATTEMPTS = (
    "cp /bin/true a; chmod 4755 a; chmod u+s a; chmod g+s a; "
    "python3 -c 'import os; os.chmod(\"a\", 0o6755)'; "
    "python3 -c 'import os; os.close(os.open(\"b\", os.O_CREAT | os.O_WRONLY, 0o4755))'; "
    "python3 -c 'import os, stat; os.mknod(\"c\", stat.S_IFREG | 0o4755)'; "
    "cp /bin/true d; chmod 700 d; chmod +x d; mkdir -m 755 e; ls -l a b c d"
)


def test_confined_commands_cannot_make_setuid_or_setgid_files(tmp_path: Path) -> None:
    """A setuid copy of a shell left in the project or the temp dir would let any local user act as you (as root,
    anywhere root owns a file: Landlock does not cover modes); ordinary mode changes still work."""
    result = run(confine(SandboxPolicy(), str(tmp_path)), SET_ID_ATTEMPTS, tmp_path)
    for name in "abc":
        path = tmp_path / name
        if path.exists():
            assert not path.stat().st_mode & 0o6000, (name, oct(path.stat().st_mode), result.stderr)
    assert (tmp_path / "d").stat().st_mode & 0o777 == 0o700 | 0o111 and (tmp_path / "e").is_dir()
    assert "Operation not permitted" in result.stderr


@pytest.fixture
def listener() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield server.getsockname()[1]
    server.close()


CONNECT = ("python3 -c 'import socket,sys; socket.create_connection((\"127.0.0.1\", int(sys.argv[1])), 5); "
           "print(\"connected\")' {port}")


def test_network_false_refuses_a_loopback_connection(tmp_path: Path, listener: int) -> None:
    confinement = confine(SandboxPolicy(network=False), str(tmp_path))
    refused = run(confinement, CONNECT.format(port=listener), tmp_path)
    assert refused.returncode != 0 and "connected" not in refused.stdout
    assert "PermissionError" in refused.stderr
    assert "network" in (confinement.explain(refused.stderr, str(tmp_path)) or "")

    allowed = run(confine(SandboxPolicy(network=True), str(tmp_path)), CONNECT.format(port=listener), tmp_path)
    assert allowed.stdout.strip() == "connected", allowed.stderr


# IPPROTO_MPTCP (262): Landlock's TCP rules do not apply to it, and an MPTCP client falls back to plain TCP
# against an ordinary listener, so without more it reaches any TCP server with network: false.
OTHER_IP_SOCKETS = {
    "mptcp": ("python3 -c 'import socket,sys; s=socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262); "
              "s.connect((\"127.0.0.1\", int(sys.argv[1]))); print(\"connected\")' {port}"),
    "udp": ("python3 -c 'import socket,sys; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
            "s.sendto(b\"x\", (\"127.0.0.1\", int(sys.argv[1]))); print(\"connected\")' {port}"),
    "udp6": ("python3 -c 'import socket,sys; s=socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); "
             "s.sendto(b\"x\", (\"::1\", int(sys.argv[1]))); print(\"connected\")' {port}"),
}


@pytest.mark.parametrize("kind", sorted(OTHER_IP_SOCKETS))
def test_network_false_refuses_every_ip_socket_not_only_tcp(tmp_path: Path, listener: int, kind: str) -> None:
    confinement = confine(SandboxPolicy(network=False), str(tmp_path))
    refused = run(confinement, OTHER_IP_SOCKETS[kind].format(port=listener), tmp_path)
    assert refused.returncode != 0 and "connected" not in refused.stdout, refused.stderr
    assert "PermissionError" in refused.stderr
    assert "network" in (confinement.explain(refused.stderr, str(tmp_path)) or "")
    # unix sockets (local IPC, not the network) still work
    local = run(confinement, "python3 -c 'import socket; socket.socketpair(); print(\"ok\")'", tmp_path)
    assert local.stdout.strip() == "ok", local.stderr


@pytest.fixture
def abstract_listener() -> Iterator[str]:
    """A unix socket in the abstract namespace, as an X server (keystrokes into any window) or an older D-Bus
    session bus offers: no file, so no Landlock path rule can refuse connecting to it."""
    name = f"amplifier-test-{os.getpid()}-{id(object())}"
    server = socket.socket(socket.AF_UNIX)
    server.bind("\0" + name)
    server.listen(8)
    yield name
    server.close()


@pytest.mark.parametrize("network", [True, False])
def test_abstract_unix_sockets_outside_the_sandbox_are_refused(tmp_path: Path, abstract_listener: str,
                                                               network: bool) -> None:
    """(Landlock ABI >= 6, as this machine's kernel has.)"""
    command = ("python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(\"\\0\" + sys.argv[1]); "
               "print(\"connected\")' " + abstract_listener)
    result = run(confine(SandboxPolicy(network=network), str(tmp_path)), command, tmp_path)
    assert result.returncode != 0 and "connected" not in result.stdout, result.stderr
    assert "Operation not permitted" in result.stderr or "Permission denied" in result.stderr
    unconfined = run(confine(SandboxPolicy(mode="off"), str(tmp_path)), command, tmp_path)
    assert unconfined.stdout.strip() == "connected", unconfined.stderr


def test_off_runs_unconfined_and_says_so(tmp_path: Path, outside: Path) -> None:
    confinement = confine(SandboxPolicy(mode="off", required=True), str(tmp_path))
    assert not confinement.confined and confinement.refusal() is None
    assert "sandbox off" in (confinement.warning() or "")
    result = run(confinement, f"touch {outside}/x; grep NoNewPrivs /proc/self/status", tmp_path)
    assert (outside / "x").exists()
    assert result.stdout.split() == ["NoNewPrivs:", "0"]


def test_without_landlock_commands_run_with_a_warning_or_are_refused_when_required(
        tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FORCE_UNAVAILABLE_ENV, "1")
    assert landlock_abi() == 0
    confinement = confine(SandboxPolicy(), str(tmp_path))
    assert not confinement.confined
    assert FORCE_UNAVAILABLE_ENV in (confinement.warning() or "")
    assert confinement.refusal() is None
    run(confinement, f"touch {outside}/x", tmp_path)
    assert (outside / "x").exists()  # runs as before, unconfined

    required = confine(SandboxPolicy(required=True), str(tmp_path))
    assert "required" in (required.refusal() or "")
    assert "refused" in (required.warning() or "")


def test_the_launcher_fails_closed_when_it_cannot_confine(tmp_path: Path, outside: Path) -> None:
    confinement = confine(SandboxPolicy(), str(tmp_path))  # resolved while Landlock is there
    env = {**os.environ, FORCE_UNAVAILABLE_ENV: "1"}
    result = run(confinement, f"touch {outside}/x", tmp_path, env=env)
    assert result.returncode == EXIT_CANNOT_CONFINE
    assert "refusing to run unconfined" in result.stderr
    assert not (outside / "x").exists()


def test_a_confined_command_cannot_widen_its_own_confinement(tmp_path: Path, outside: Path) -> None:
    """What a hostile command can try from inside: start a nested launcher (or a nested amplifier) with "/" as its
    write root, with the sandbox off, or with the "no Landlock" test switch set. Landlock domains only stack."""
    nested_wide = confine(SandboxPolicy(), "/").argv(["/bin/touch", f"{outside}/wide"])
    nested_off = confine(SandboxPolicy(mode="off"), "/").argv(["/bin/touch", f"{outside}/off"])
    script = "; ".join([
        " ".join(f"'{word}'" for word in nested_wide),
        " ".join(f"'{word}'" for word in nested_off),
        f"{FORCE_UNAVAILABLE_ENV}=1 touch {outside}/forced",
        f"cd {outside} && touch relative",
    ])
    result = run(confine(SandboxPolicy(), str(tmp_path)), script, tmp_path)
    assert sorted(os.listdir(outside)) == [], result.stderr
    assert result.stderr.count("Permission denied") == 4, result.stderr


def test_network_false_is_a_gap_on_kernels_before_abi_4(tmp_path: Path) -> None:
    from amplifier_support.sandbox import SandboxSupport

    confinement = confine(SandboxPolicy(network=False, required=True), str(tmp_path), SandboxSupport(3))
    assert "ABI 4" in (confinement.refusal() or "")


def test_unknown_mode_is_rejected() -> None:
    with pytest.raises(ValueError, match="workspace-write"):
        SandboxPolicy(mode="sometimes")  # type: ignore[arg-type]


def test_async_helper_starts_a_confined_process(tmp_path: Path, outside: Path) -> None:
    async def main() -> tuple[int, bytes]:
        process = await create_confined_subprocess_exec(
            confine(SandboxPolicy(), str(tmp_path)), "/bin/sh", "-c", f"touch {outside}/x",
            stderr=asyncio.subprocess.PIPE)
        _, err = await process.communicate()
        return process.returncode or 0, err

    code, err = asyncio.run(main())
    assert code != 0 and b"Permission denied" in err
    assert not (outside / "x").exists()
