"""Startup time of the `amplifier` command: median wall time of `--help` and `--version` (and any extra
argument lists other benchmarks register in CASES), and for the interactive chat, in a pseudo-terminal, the
time from launch to the prompt being shown and to the session being open (bundled `demo` profile, no key).
Also spawn-to-first-request: `amplifier run -P minimal "hi"` against the fake API server, beside a plain
script that only imports the Anthropic SDK and makes the same request (the floor any CLI pays).
Prints numbers; asserts nothing.

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


def time_to_prompt(command: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """(seconds to the prompt, seconds to the session line) of `amplifier run -P demo` in a pty."""
    import pexpect

    start = time.perf_counter()
    child = pexpect.spawn(command[0], [*command[1:], "run", "-P", "demo"], env=env, cwd=cwd, encoding="utf-8",
                          dimensions=(40, 120), timeout=30)
    try:
        child.expect_exact("❯ ")
        prompt = time.perf_counter() - start
        child.expect_exact("· session ")
        ready = time.perf_counter() - start
        child.expect_exact("❯ ")  # redrawn below the session line; keys sent while it prints could be lost
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    return prompt, ready


PLAIN_REQUEST = (
    "import anthropic; anthropic.Anthropic().messages.create(model='claude-sonnet-4-6', max_tokens=64,"
    " messages=[{'role': 'user', 'content': 'hi'}])"
)


def time_to_first_request(command: list[str], env: dict[str, str], cwd: str, server) -> float:
    """Seconds from spawning ``command`` until the fake server has journaled its first request."""
    seen = len(server.requests)
    start = time.perf_counter()
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    try:
        server.wait_for_requests(seen + 1, timeout=60)
        return time.perf_counter() - start
    finally:
        child.wait(timeout=60)


def first_request_rows(base: list[str], env: dict[str, str], runs: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
    from fakeapi import FakeAPIServer, Turn

    with FakeAPIServer() as server, tempfile.TemporaryDirectory() as project:
        server.add(Turn(text="hi"), repeat=True)
        api_env = {name: value for name, value in env.items() if not name.startswith(("OPENAI_", "ANTHROPIC_"))}
        api_env.update({"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "sk-ant-bench-dummy"})
        for name, command in (
            ("run 1st req", [*base, "run", "-P", "minimal", "hi"]),
            ("sdk 1st req", [sys.executable, "-c", PLAIN_REQUEST]),
        ):
            time_to_first_request(command, api_env, project, server)  # warm the OS file cache
            _report(name, [time_to_first_request(command, api_env, project, server) for _ in range(runs)])


def _report(name: str, samples: list[float]) -> None:
    print(
        f"{name:<12} median {statistics.median(samples) * 1000:7.1f} ms   "
        f"min {min(samples) * 1000:7.1f} ms   max {max(samples) * 1000:7.1f} ms"
    )


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
            _report(name, samples)
        chat_env = {**env, "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": env.get("TERM", "xterm-256color")}
        with tempfile.TemporaryDirectory() as project:
            time_to_prompt(base, chat_env, project)  # warm the OS file cache
            runs = [time_to_prompt(base, chat_env, project) for _ in range(args.runs)]
        _report("chat prompt", [prompt for prompt, _ in runs])
        _report("chat ready", [ready for _, ready in runs])
        first_request_rows(base, env, args.runs)


if __name__ == "__main__":
    main()
