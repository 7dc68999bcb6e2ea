"""How fast `amplifier acp` answers an editor that starts it: wall time from spawning the installed command to the
`initialize` answer, and from sending `session/new` (right after that answer, as editors do) to its answer, in a
fresh scratch project with the bundled `demo` profile (scripted model: no key, no network). Medians over N spawns,
each a cold process (no warm start). Goals (issue 34): initialize at most 150 ms, session/new at most 500 ms, on
2 cores. Prints numbers; asserts nothing.

    python bench/acp_start.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import select
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from startup import amplifier_command  # bench/ is on sys.path when a script here runs


def _read_answer(process: subprocess.Popen[bytes], request_id: int, deadline: float) -> dict:
    assert process.stdout is not None
    buffered = b""
    while time.perf_counter() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.perf_counter()))
        if not ready:
            break
        chunk = os.read(process.stdout.fileno(), 65536)
        if not chunk:
            break
        buffered += chunk
        while b"\n" in buffered:
            line, buffered = buffered.split(b"\n", 1)
            message = json.loads(line)
            if message.get("id") == request_id and "method" not in message:
                return message
    raise RuntimeError(f"no answer to request {request_id}")


def one_spawn(command: list[str], project: Path, env: dict[str, str]) -> tuple[float, float]:
    started = time.perf_counter()
    process = subprocess.Popen([*command, "acp", "-P", "demo"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, cwd=project, env=env)
    assert process.stdin is not None
    try:
        process.stdin.write(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\n')
        process.stdin.flush()
        _read_answer(process, 0, started + 30)
        initialized = time.perf_counter()
        request = {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": str(project),
                                                                                   "mcpServers": []}}
        process.stdin.write(json.dumps(request).encode() + b"\n")
        process.stdin.flush()
        answer = _read_answer(process, 1, initialized + 30)
        if "error" in answer:
            raise RuntimeError(f"session/new failed: {answer['error']}")
        opened = time.perf_counter()
        process.stdin.close()
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return initialized - started, opened - initialized


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    options = parser.parse_args()
    command = amplifier_command()
    with tempfile.TemporaryDirectory(prefix="acp-bench-") as scratch:
        project = Path(scratch) / "project"
        project.mkdir()
        env = {**os.environ, "AMPLIFIER_HOME": str(Path(scratch) / "home")}
        one_spawn(command, project, env)  # first run: bytecode and caches, not counted
        samples = [one_spawn(command, project, env) for _ in range(options.runs)]
    initialize = statistics.median(sample[0] for sample in samples) * 1000
    new_session = statistics.median(sample[1] for sample in samples) * 1000
    print(f"amplifier acp, {options.runs} cold spawns (medians, ms)")
    print(f"  spawn -> initialize answered   {initialize:7.1f}   (goal <= 150)")
    print(f"  session/new -> answered        {new_session:7.1f}   (goal <= 500)")


if __name__ == "__main__":
    main()
