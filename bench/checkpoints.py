"""What a checkpoint costs per tool call: a 10,000-file project (small text files, a .gitignore'd build dir),
snapshotted into the shadow repository the way `Checkpointer` does before and after a file-changing tool.

Run: ``python bench/checkpoints.py [--files N] [--calls N]``. Prints the first snapshot (the whole tree is
hashed once), then the median of later ones, each after one file was edited (what a tool call changes).
Everything runs in a temp dir with its own data dir; the project's own `.git` is never touched."""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from amplifier_cli.sessions.checkpoints import ShadowRepo


def _project(root: Path, files: int) -> None:
    for index in range(files):
        folder = root / f"pkg{index // 100:03d}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod{index % 100:02d}.py").write_text(f"VALUE = {index}\n" + "x = 1\n" * 20)
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    for index in range(200):
        (root / "build" / f"out{index}.o").write_bytes(b"\0" * 4096)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=20)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        project, data = Path(scratch) / "project", Path(scratch) / "data"
        project.mkdir()
        _project(project, options.files)
        repo = ShadowRepo(data, project)
        started = time.perf_counter()
        repo.ensure()
        repo.check_size()
        checked = time.perf_counter() - started
        started = time.perf_counter()
        repo.snapshot("first")
        first = time.perf_counter() - started
        times = []
        for call in range(options.calls):
            (project / "pkg000" / "mod00.py").write_text(f"VALUE = {call}\n")
            started = time.perf_counter()
            repo.snapshot(f"call {call}")
            times.append(time.perf_counter() - started)
    print(f"project: {options.files} files (+200 ignored)")
    print(f"size check (once per session): {checked * 1000:.0f} ms")
    print(f"first snapshot (hashes every file): {first * 1000:.0f} ms")
    print(f"snapshot per tool call, median of {options.calls}: {statistics.median(times) * 1000:.1f} ms"
          " (taken before and after each file-changing tool)")


if __name__ == "__main__":
    main()
