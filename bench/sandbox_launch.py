"""Cost of starting a command in the sandbox: median wall time of `bash -c true` started plainly and through
the exec launcher (`python -I -S launch.py SPEC -- bash -c true`: interpreter start, ctypes, the Landlock
syscalls, exec), with and without the mount namespace that keeps a project's protected places read-only, and
the before/after snapshot of those places that brackets every command. Prints numbers; asserts nothing.

    python bench/sandbox_launch.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from amplifier_support.sandbox import FORCE_NO_NAMESPACE_ENV, SandboxPolicy, confine


def measure(variants: dict[str, list[str]], runs: int, cwd: str) -> dict[str, tuple[float, float]]:
    """label -> (median, minimum) in ms; the variants take turns, so a burst of load hits all of them alike."""
    samples: dict[str, list[float]] = {label: [] for label in variants}
    for _ in range(runs):
        for label, argv in variants.items():
            start = time.perf_counter()
            subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, cwd=cwd)
            samples[label].append((time.perf_counter() - start) * 1000)
    return {label: (statistics.median(values), min(values)) for label, values in samples.items()}


def project(base: str) -> str:
    """A git repository with amplifier config and an MCP servers file: every protected place exists."""
    root = Path(base) / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".amplifier" / "hooks").mkdir(parents=True)
    (root / ".amplifier" / "settings.yaml").write_text("x: 1\n")
    (root / ".mcp.json").write_text("{}\n")
    return str(root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    command = ["/bin/bash", "-c", "true"]
    with tempfile.TemporaryDirectory() as base:
        root = project(base)
        with_namespace = confine(SandboxPolicy(), root)
        os.environ[FORCE_NO_NAMESPACE_ENV] = "1"
        landlock_only = confine(SandboxPolicy(), root)
        no_net = confine(SandboxPolicy(network=False), root)
        del os.environ[FORCE_NO_NAMESPACE_ENV]
        assert with_namespace.namespace and not landlock_only.namespace
        rows = measure({"plain": command, "sandboxed, Landlock only": landlock_only.argv(command),
                        "sandboxed, no network, Landlock only": no_net.argv(command),
                        "sandboxed + namespace (read-only places)": with_namespace.argv(command)}, runs, root)
        start = time.perf_counter()
        for _ in range(runs):
            with_namespace.changed(with_namespace.snapshot())
        snapshot = (time.perf_counter() - start) * 1000 / runs
    plain, plain_min = rows["plain"]
    print(f"{'bash -c true':<56}median      min")
    for label, (median, least) in rows.items():
        extra = f"  (+{median - plain:.1f} / +{least - plain_min:.1f} ms)" if label != "plain" else ""
        print(f"  {label:<54}{median:6.1f} ms {least:6.1f} ms{extra}")
    print(f"snapshot before + compare after (git init + .amplifier)   {snapshot:6.2f} ms")


if __name__ == "__main__":
    main()
