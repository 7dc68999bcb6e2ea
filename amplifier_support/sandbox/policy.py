"""What a caller asks of the sandbox (``SandboxPolicy``) and what this machine can give (``Confinement``)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Literal

from . import landlock, seccomp
from .denials import refused_actions

SandboxMode = Literal["workspace-write", "read-only", "off"]
MODES: tuple[str, ...] = ("workspace-write", "read-only", "off")

# Device files every program expects to write (``> /dev/null``); granted in every confined mode.
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
_LAUNCHER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "launch.py")


def temp_dirs() -> list[str]:
    """The system temp dir and, where it exists, /dev/shm (shared memory of Python, browsers, compilers)."""
    found = [os.path.realpath(tempfile.gettempdir())]
    if os.path.isdir("/dev/shm"):
        found.append("/dev/shm")
    return found


@dataclass(frozen=True)
class SandboxPolicy:
    """The confinement a caller wants. No defaults are chosen for the caller's project: ``workspace`` (given
    to ``confine``) is what workspace-write may write, plus ``write_roots``, plus the temp dirs.

    ``required``: refuse to run (see ``Confinement.refusal``) rather than run with less than asked."""

    mode: SandboxMode = "workspace-write"
    write_roots: tuple[str, ...] = ()
    network: bool = True
    required: bool = False

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown sandbox mode {self.mode!r}; use one of {', '.join(MODES)}")


@dataclass(frozen=True)
class SandboxSupport:
    """What this kernel offers: the Landlock ABI (0 = none) and, when 0, why."""

    abi: int
    reason: str = ""

    @property
    def available(self) -> bool:
        return self.abi >= 1


def sandbox_support() -> SandboxSupport:
    """Ask the kernel now (one syscall; not cached so the test switch in the environment is honoured)."""
    abi, reason = landlock.abi_version()
    return SandboxSupport(abi, reason)


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when there is none (or the test switch forces that)."""
    return sandbox_support().abi


def _unique(paths: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(paths))


@dataclass(frozen=True)
class Confinement:
    """A policy resolved for one workspace on this machine: what is enforced, what is not, and how to start a
    command under it (``argv``)."""

    policy: SandboxPolicy
    workspace: str
    support: SandboxSupport
    writable: tuple[str, ...] = ()
    gaps: tuple[str, ...] = field(default=())  # what the policy asks and this kernel cannot enforce

    @property
    def confined(self) -> bool:
        """True when commands are started under Landlock."""
        return self.policy.mode != "off" and self.support.available

    def refusal(self) -> str | None:
        """The message to return instead of running, when the policy is ``required`` and not fully enforced."""
        if self.policy.mode == "off" or not self.policy.required or not self.gaps:
            return None
        return ("Not run: the sandbox is required (sandbox.required: true) but " + "; ".join(self.gaps)
                + ". Run on a Linux kernel with Landlock, or set sandbox.required: false to run with a warning.")

    def warning(self) -> str | None:
        """One line for the user at start (and in a status view) when commands run with less than asked."""
        if self.policy.mode == "off":
            return "sandbox off: shell commands run with your full permissions (no OS confinement)."
        if not self.gaps:
            return None
        if self.policy.required:
            return "sandbox required but " + "; ".join(self.gaps) + ": shell commands will be refused."
        return "sandbox not fully enforced: " + "; ".join(self.gaps) + "."

    def describe(self) -> str:
        """A one-line summary: mode, kernel support, write roots, network."""
        if self.policy.mode == "off":
            return "off (commands unconfined)"
        if not self.confined:
            return f"{self.policy.mode} requested, NOT enforced: {self.support.reason}"
        where = ", ".join(path for path in self.writable if path not in WRITABLE_DEVICES)
        net = "allowed" if self.policy.network else ("refused" if self.support.abi >= 4 else "NOT refused")
        return f"{self.policy.mode} (Landlock ABI {self.support.abi}): writes only in {where}; network {net}"

    def rule(self) -> str:
        """The rule a refusal broke, named for the model and the user."""
        roots = ", ".join(path for path in self.writable if path not in WRITABLE_DEVICES)
        if self.policy.mode == "read-only":
            return f"sandbox read-only: no writes except in the temp dir ({roots})"
        return f"sandbox workspace-write: writes only in {roots}"

    def explain(self, output: str, cwd: str) -> str | None:
        """When ``output`` shows the sandbox refused something: one plain message saying what and by which
        rule, else None."""
        if not self.confined:
            return None
        network_refused = not self.policy.network and self.support.abi >= 4
        refused = refused_actions(output, cwd, self.writable, network_refused)
        if not refused:
            return None
        rules = [self.rule()] + (["network: false (IP sockets refused)"] if network_refused else [])
        return ("Blocked by the sandbox (Landlock): refused " + "; ".join(refused) + ". Rules: "
                + "; ".join(rules) + ". Work inside the write roots, or ask the user to run it outside the "
                "sandbox.")

    def argv(self, argv: list[str]) -> list[str]:
        """``argv`` wrapped in the exec launcher when confined, else unchanged. The launcher fails closed
        (exit 126 and a message) if it cannot enforce the ruleset when the command starts."""
        if not self.confined:
            return list(argv)
        spec = json.dumps({"write": list(self.writable),
                           "deny_network": not self.policy.network})
        return [sys.executable, "-I", "-S", _LAUNCHER, spec, "--", *argv]


def confine(policy: SandboxPolicy, workspace: str, support: SandboxSupport | None = None) -> Confinement:
    """Resolve ``policy`` for commands run on behalf of ``workspace`` (absolute; its directory tree is what
    workspace-write may write)."""
    support = support or sandbox_support()
    if policy.mode == "off":
        return Confinement(policy, workspace, support)
    roots = [os.path.realpath(workspace)] if policy.mode == "workspace-write" else []
    if policy.mode == "workspace-write":
        roots += [os.path.realpath(os.path.join(workspace, os.path.expanduser(root))) for root in policy.write_roots]
    writable = _unique([*roots, *temp_dirs(), *WRITABLE_DEVICES])
    gaps: list[str] = []
    if not support.available:
        gaps.append(support.reason)
    elif not policy.network and support.abi < 4:
        gaps.append(f"network: false needs Landlock ABI 4 and this kernel has ABI {support.abi}")
    elif not policy.network and not seccomp.supported():
        gaps.append("network: false refuses only TCP on this architecture (UDP, raw and MPTCP sockets are "
                    "not refused)")
    return Confinement(policy, workspace, support, writable, tuple(gaps))
