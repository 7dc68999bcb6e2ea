"""Startup time of the `amplifier` command: median wall time of `--help` and `--version` (and any extra
argument lists other benchmarks register in CASES). Prints numbers; asserts nothing.

    python bench/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# name -> arguments after `amplifier`; extend this list for new commands worth timing.
CASES: list[tuple[str, list[str]]] = [
    ("--help", ["--help"]),
    ("--version", ["--version"]),
]


def amplifier_command() -> list[str]:
    """The installed console script beside this interpreter, else `python -m amplifier_cli`."""
    script = Path(sys.executable).with_name("amplifier")
    if script.exists():
        return [str(script)]
    found = shutil.which("amplifier")
    return [found] if found else [sys.executable, "-m", "amplifier_cli"]


def time_once(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    base = amplifier_command()
    with tempfile.TemporaryDirectory() as home:  # never touch the real user's settings
        env = {**os.environ, "AMPLIFIER_HOME": home}
        print(f"command: {' '.join(base)}  runs: {args.runs}")
        for name, extra in CASES:
            time_once(base + extra, env)  # warm the OS file cache
            samples = [time_once(base + extra, env) for _ in range(args.runs)]
            print(
                f"{name:<12} median {statistics.median(samples) * 1000:7.1f} ms   "
                f"min {min(samples) * 1000:7.1f} ms   max {max(samples) * 1000:7.1f} ms"
            )


if __name__ == "__main__":
    main()
