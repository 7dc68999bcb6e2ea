"""Cost of starting a command in the sandbox: median wall time of `bash -c true` started plainly and through
the exec launcher (`python -I -S launch.py SPEC -- bash -c true`: interpreter start, ctypes, the Landlock
syscalls, exec). Prints numbers; asserts nothing.

    python bench/sandbox_launch.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time

from amplifier_support.sandbox import SandboxPolicy, confine


def median_ms(argv: list[str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdin=subprocess.DEVNULL)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    command = ["/bin/bash", "-c", "true"]
    plain = median_ms(command, runs)
    confined = median_ms(confine(SandboxPolicy(), os.getcwd()).argv(command), runs)
    no_net = median_ms(confine(SandboxPolicy(network=False), os.getcwd()).argv(command), runs)
    print(f"bash -c true, plain                 {plain:7.1f} ms")
    print(f"bash -c true, sandboxed             {confined:7.1f} ms  (+{confined - plain:.1f} ms)")
    print(f"bash -c true, sandboxed, no network {no_net:7.1f} ms  (+{no_net - plain:.1f} ms)")


if __name__ == "__main__":
    main()
