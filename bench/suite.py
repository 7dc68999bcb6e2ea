"""How long the test suite takes: the README's test command, with `amplifier` started warm (tests/support/warmstart,
the default) and cold (AMPLIFIER_TEST_COLD=1, every launch imports everything itself).

    python bench/suite.py              # warm, then cold (about 15 minutes on 2 cores)
    python bench/suite.py --warm-only  # the suite as CI runs it
    python bench/suite.py -- tests/e2e # any pytest arguments after --, instead of the whole suite

Prints wall time and the CPU time of every process the run started (pytest, its workers, the warm-start
servers and every `amplifier` they forked), so a change can be judged on a busy machine too."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

README_COMMAND = [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "worksteal", "-p", "no:cacheprovider"]


def measure(label: str, arguments: list[str], cold: bool) -> None:
    environment = {**os.environ}
    environment.pop("AMPLIFIER_TEST_COLD", None)
    if cold:
        environment["AMPLIFIER_TEST_COLD"] = "1"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run([*README_COMMAND, *arguments], env=environment, capture_output=True, text=True,
                          check=False)
    wall = time.monotonic() - started
    _reap_orphans()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    print(f"{label:5}  wall {wall:7.1f} s  cpu {cpu:7.1f} s  exit {done.returncode}  {summary}", flush=True)
    for line in done.stdout.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            print(f"       {line}", flush=True)


def _become_subreaper() -> None:
    """Orphaned descendants are re-parented here instead of to init (Linux PR_SET_CHILD_SUBREAPER): the shared
    warm-start server outlives the worker that started it, and its CPU counts only once it is reaped here."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _reap_orphans() -> None:
    while True:
        try:
            os.wait()
        except ChildProcessError:
            return


def main() -> None:
    _become_subreaper()
    arguments = sys.argv[1:]
    warm_only = "--warm-only" in arguments
    if "--" in arguments:
        arguments = arguments[arguments.index("--") + 1:]
    else:
        arguments = []
    measure("warm", arguments, cold=False)
    if not warm_only:
        measure("cold", arguments, cold=True)


if __name__ == "__main__":
    main()
