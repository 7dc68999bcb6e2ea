"""How long `amplifier session list` takes with many stored sessions (metadata-only session directories, as
`list` never reads transcripts). Prints median wall times; asserts nothing.

    python bench/session_list.py [--sessions N] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from startup import amplifier_command


def make_sessions(sessions_dir: Path, project: Path, count: int) -> None:
    now = datetime.now(UTC)
    for index in range(count):
        session_id = f"{index:08x}-0000-4000-8000-000000000000"
        stamp = (now - timedelta(seconds=index)).isoformat(timespec="seconds")
        directory = sessions_dir / session_id
        directory.mkdir(parents=True)
        metadata = {
            "version": 1, "session_id": session_id, "created": stamp, "updated": stamp, "cwd": str(project),
            "project": str(project), "profile": "default", "model": "claude-sonnet-4-6", "turn_count": 3,
            "status": "completed", "first_prompt": f"prompt number {index}",
        }
        (directory / "metadata.json").write_text(json.dumps(metadata), encoding="utf-8")


def time_once(command: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env, cwd=cwd)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    base = amplifier_command()
    with tempfile.TemporaryDirectory() as scratch:
        home, project = Path(scratch) / "home", Path(scratch) / "project"
        (project / ".amplifier").mkdir(parents=True)
        make_sessions(home / "data" / "sessions", project.resolve(), args.sessions)
        env = {**os.environ, "AMPLIFIER_HOME": str(home), "COLUMNS": "160"}
        print(f"command: {' '.join(base)}  sessions: {args.sessions}  runs: {args.runs}")
        for name, extra in (
            ("list (table, 20)", ["session", "list"]),
            ("list --json -n 0", ["session", "list", "--json", "-n", "0"]),
            ("list --all-projects", ["session", "list", "--all-projects", "--json"]),
            ("--version (floor)", ["--version"]),
        ):
            time_once(base + extra, env, project)  # warm the OS file cache
            samples = [time_once(base + extra, env, project) for _ in range(args.runs)]
            print(f"{name:<20} median {statistics.median(samples) * 1000:7.1f} ms   "
                  f"min {min(samples) * 1000:7.1f} ms   max {max(samples) * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
