"""What a caller asks of the sandbox (``SandboxPolicy``) and what this machine can give (``Confinement``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field

from amplifier_support.protected_paths import FILE_ENTRIES, PROJECT_ENTRIES, protected_places

from ..sandbox_modes import DEFAULT_MODE, SandboxMode, parse_mode
from . import landlock, namespace, placeholders, seccomp, watch
from .denials import refused_actions

# Device files every program expects to write (``> /dev/null``); granted in every confined mode.
WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
_LAUNCHER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "launch.py")
_NAMESPACE_PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "namespace.py")
_probed: dict[str, str] = {}  # test switch value -> why no namespace ("" = one can be made)
WORKSPACE_LABEL = "the project (read-only mode)"


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

    ``required``: refuse to run (see ``Confinement.refusal``) rather than run with less than asked.
    ``proxied`` (with ``network`` false): the command's network goes through a proxy the caller runs (its socket
    given to ``Confinement.argv``), in a network namespace with no other way out."""

    mode: SandboxMode = DEFAULT_MODE
    write_roots: tuple[str, ...] = ()
    network: bool = True
    required: bool = False
    proxied: bool = False

    def __post_init__(self) -> None:
        parse_mode(self.mode)  # ValueError naming the modes


@dataclass(frozen=True)
class SandboxSupport:
    """What this kernel offers: the Landlock ABI (0 = none) and, when 0, why; and whether a user + mount
    namespace can be made (for read-only places inside write roots) and, when not, why."""

    abi: int
    reason: str = ""
    namespace_reason: str = ""

    @property
    def available(self) -> bool:
        return self.abi >= 1

    @property
    def namespaces(self) -> bool:
        return not self.namespace_reason


def namespace_support() -> str:
    """Why no user + mount namespace with a read-only bind can be made here ("" when it can). Tried once per
    process in a child (``python -I -S namespace.py``: no fork of this threaded process); the environment
    variable ``AMPLIFIER_SANDBOX_FORCE_NO_NAMESPACE=1`` answers "no" (for tests of that path only)."""
    forced = os.environ.get(namespace.FORCE_NO_NAMESPACE_ENV, "")
    if forced not in ("", "0"):
        return f"{namespace.FORCE_NO_NAMESPACE_ENV} is set (a test switch)"
    if not sys.platform.startswith("linux"):
        return f"mount namespaces are a Linux feature; this system is {sys.platform}"
    if forced not in _probed:
        try:
            done = subprocess.run([sys.executable, "-I", "-S", _NAMESPACE_PROBE], capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL, timeout=10)
            why = "" if done.returncode == 0 else (done.stderr.strip().splitlines() or ["refused"])[-1]
        except (OSError, subprocess.SubprocessError) as error:
            why = str(error)
        _probed[forced] = f"unshare or mount refused ({why})" if why else ""
    return _probed[forced]


def sandbox_support() -> SandboxSupport:
    """Ask the kernel now (one syscall, and the namespace probe once per process; the test switches in the
    environment are honoured)."""
    abi, reason = landlock.abi_version()
    return SandboxSupport(abi, reason, namespace_support() if abi >= 1 else "")


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
    protected: tuple[tuple[str, str], ...] = ()  # (path, label): places a command must not change
    watched: tuple[tuple[str, str], ...] = ()  # the project's among them: compared before and after each command
    read_only: tuple[str, ...] = ()  # paths inside the write roots the launcher binds read-only (namespace)
    notes: tuple[str, ...] = ()  # said once, never a reason to refuse (no namespace, temp dir left out)
    placeholders: tuple[tuple[str, str], ...] = ()  # (path, "dir"|"file") of read-only places made when missing

    @property
    def confined(self) -> bool:
        """True when commands are started under Landlock."""
        return self.policy.mode != "off" and self.support.available

    @property
    def namespace(self) -> bool:
        """True when the launcher makes ``read_only`` read-only in a mount namespace."""
        return self.confined and self.support.namespaces and bool(self.read_only)

    @property
    def proxied(self) -> bool:
        """True when the command's network goes through the caller's proxy (a network namespace can be made)."""
        return self.confined and not self.policy.network and self.policy.proxied and self.support.namespaces

    @property
    def workspace_read_only(self) -> bool:
        """read-only mode with the workspace inside a write root (the temp dir): the namespace binds it."""
        return self.namespace and os.path.realpath(self.workspace) in self.read_only

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
        lines = []
        if self.gaps:
            if self.policy.required:
                lines.append("sandbox required but " + "; ".join(self.gaps) + ": shell commands will be refused.")
            else:
                lines.append("sandbox not fully enforced: " + "; ".join(self.gaps) + ".")
        if self.confined:
            lines += [f"sandbox: {note}." for note in self.notes]
        return " ".join(lines) or None

    def describe(self) -> str:
        """A one-line summary: mode, kernel support, write roots, read-only places, network."""
        if self.policy.mode == "off":
            return "off (commands unconfined)"
        if not self.confined:
            return f"{self.policy.mode} requested, NOT enforced: {self.support.reason}"
        where = ", ".join(path for path in self.writable if path not in WRITABLE_DEVICES)
        net = "allowed" if self.policy.network else ("refused" if self.support.abi >= 4 else "NOT refused")
        if self.proxied:
            net = "only through amplifier's proxy (hosts on sandbox.network.allow, others asked)"
        text = f"{self.policy.mode} (Landlock ABI {self.support.abi}): writes only in {where}"
        if self.namespace:
            text += "; read-only inside them: " + ", ".join(self.read_only) + " (mount namespace)"
        elif self.protected:
            text += "; protected places NOT read-only (no mount namespace): changes reported after each command"
        return f"{text}; network {net}"

    def rule(self) -> str:
        """The rule a refusal broke, named for the model and the user."""
        roots = ", ".join(path for path in self.writable if path not in WRITABLE_DEVICES)
        if self.policy.mode == "read-only":
            return f"sandbox read-only: no writes except in the temp dir ({roots})"
        text = f"sandbox workspace-write: writes only in {roots}"
        if self.namespace:
            text += "; amplifier's project config, .mcp.json, .claude/ and git's hooks and config are read-only"
        return text

    def explain(self, output: str, cwd: str) -> str | None:
        """When ``output`` shows the sandbox refused something: one plain message saying what and by which
        rule, else None."""
        if not self.confined:
            return None
        self.tidy()  # a refused write into a stand-in reads as a write into the place, which no longer exists
        network_refused = not self.policy.network and self.support.abi >= 4
        read_only = {}
        if self.namespace:
            read_only = {path: label for path, label in self.protected if path in self.read_only}
            if self.workspace_read_only:
                read_only[os.path.realpath(self.workspace)] = WORKSPACE_LABEL
        refused = refused_actions(output, cwd, self.writable, network_refused, read_only)
        if not refused:
            return None
        network_rule = ("network: only the hosts of sandbox.network.allow, through amplifier's proxy (HTTP_PROXY)"
                        if self.proxied else "network: false (IP sockets refused)")
        rules = [self.rule()] + ([network_rule] if network_refused else [])
        return ("Blocked by the sandbox (Landlock): refused " + "; ".join(refused) + ". Rules: "
                + "; ".join(rules) + ". Work inside the write roots, or ask the user to run it outside the "
                "sandbox.")

    def argv(self, argv: list[str], proxy: str | None = None) -> list[str]:
        """``argv`` wrapped in the exec launcher when confined, else unchanged. The launcher fails closed
        (exit 126 and a message) if it cannot enforce the ruleset when the command starts. ``proxy``: the socket
        of the caller's proxy, for a ``proxied`` policy (without one, such a command has no network at all)."""
        if not self.confined:
            return list(argv)
        spec: dict[str, object] = {"write": list(self.writable), "deny_network": not self.policy.network}
        if self.proxied and proxy:
            spec.update(proxy=proxy, namespace=True, read_only=list(self.read_only))
        if self.namespace:
            spec.update(read_only=list(self.read_only), namespace=True, strict=self.workspace_read_only)
            if self.placeholders:
                spec.update(placeholders=[list(entry) for entry in self.placeholders],
                            lock=os.path.realpath(self.workspace))
        return [sys.executable, "-I", "-S", _LAUNCHER, json.dumps(spec), "--", *argv]

    def tidy(self, wait: float = 0.0) -> None:
        """Remove the launcher's stand-ins for missing places that no running command holds any more (``wait``:
        seconds to keep trying while one is held, when the commands holding them are being ended)."""
        if self.placeholders and self.namespace:
            placeholders.remove_unheld([path for path, _ in self.placeholders], os.path.realpath(self.workspace),
                                       wait)

    def snapshot(self) -> watch.Snapshot:
        """The protected places as they are now; after the command, ``changed`` compares."""
        return watch.take(self.watched)

    def changed(self, before: watch.Snapshot) -> str | None:
        """A line naming the protected places that changed since ``before`` (None when none did), whatever
        changed them: the namespace keeps existing places read-only, not a place that did not exist yet, and
        without a namespace nothing does."""
        self.tidy()
        found = watch.changes(before, self.snapshot(), os.path.realpath(self.workspace))
        if not found:
            return None
        return ("protected places changed while this command ran: " + "; ".join(found) + ". They decide what "
                "the next session runs and trusts: check them (cat, git diff) before trusting this project again.")


def _inside(path: str, roots: Iterable[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def confine(policy: SandboxPolicy, workspace: str, support: SandboxSupport | None = None,
            protect: Iterable[tuple[str, str]] = ()) -> Confinement:
    """Resolve ``policy`` for commands run on behalf of ``workspace`` (absolute; its directory tree is what
    workspace-write may write). The project's protected places (``amplifier_support.protected_paths``) and
    the (path, label) pairs of ``protect`` (the app's own places) stay read-only where a namespace can be made;
    the project's are compared before and after each command either way (the app's are not: the app itself
    writes them while commands run)."""
    support = support or sandbox_support()
    real_workspace = os.path.realpath(workspace)
    found = [(place.path, place.label) for place in protected_places(real_workspace)]
    labels = dict(found)
    for entry in PROJECT_ENTRIES:
        lexical = os.path.join(real_workspace, entry)
        if os.path.islink(lexical):  # the link itself can be replaced: a mount follows it, the comparison not
            found.append((lexical, labels.get(os.path.realpath(lexical), "a protected place")))
    watched = tuple(found)
    places = dict(watched)
    for path, label in protect:
        places.setdefault(os.path.realpath(path), label)
    protected = tuple(places.items())
    if policy.mode == "off":
        return Confinement(policy, workspace, support, protected=protected, watched=watched)
    roots = [real_workspace] if policy.mode == "workspace-write" else []
    if policy.mode == "workspace-write":
        roots += [os.path.realpath(os.path.join(workspace, os.path.expanduser(root))) for root in policy.write_roots]
    temps = temp_dirs()
    notes: list[str] = []
    namespaces = support.available and support.namespaces
    if policy.mode == "read-only" and not namespaces and _inside(real_workspace, temps):
        temps = [temp for temp in temps if not _inside(real_workspace, [temp])]
        notes.append(f"read-only: the temp dir is not writable either, since the project lies in it and no mount "
                     f"namespace can make the project alone read-only ({support.namespace_reason})")
    writable = _unique([*roots, *temps, *WRITABLE_DEVICES])
    read_only = [path for path, _ in protected if _inside(path, writable)]
    if policy.mode == "read-only" and _inside(real_workspace, writable):
        read_only.insert(0, real_workspace)
    if read_only and support.available and not support.namespaces and policy.mode == "workspace-write":
        notes.append("amplifier's project config, .mcp.json, .claude/ and git's hooks and config are NOT read-only for "
                     f"commands: no mount namespace ({support.namespace_reason}); each command's changes to them "
                     "are reported in its result")
    gaps: list[str] = []
    if not support.available:
        gaps.append(support.reason)
    elif not policy.network and support.abi < 4:
        gaps.append(f"network: false needs Landlock ABI 4 and this kernel has ABI {support.abi}")
    elif not policy.network and not seccomp.supported():
        gaps.append("network: false refuses only TCP on this architecture (UDP, raw and MPTCP sockets are "
                    "not refused)")
    stand_ins = tuple((path, "file" if os.path.basename(path) in FILE_ENTRIES else "dir")
                      for path, label in watched if path in read_only and label != "the git dir link"
                      and os.path.realpath(path) == path)  # a linked entry exists (the link): never made
    return Confinement(policy, workspace, support, writable, tuple(gaps), protected, watched, tuple(read_only),
                       tuple(notes), stand_ins)
