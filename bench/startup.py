"""Startup time of the `amplifier` command: median wall time of `--help` and `--version` (and any extra
argument lists other benchmarks register in CASES), and for the interactive chat, in a pseudo-terminal, the
time from launch to the prompt being shown and to the session being open (bundled `demo` profile, no key).
Also spawn-to-first-request: `amplifier run -P minimal "hi"` against the fake API server, beside a plain
script that only imports the Anthropic SDK and makes the same request (the floor any CLI pays).
Resume: `amplifier run --resume ID` of a 10,000-message session against a fresh `amplifier run` (scripted
provider), and `session show` of it against a small session. Peak RSS of a one-shot run with the Anthropic
SDK (from the kernel's rusage of the finished child). Prints numbers; asserts nothing.

    python bench/startup.py [--runs N] [--only ROW-GROUP ...]
"""

from __future__ import annotations

import argparse
import json
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


def time_once(command: list[str], env: dict[str, str], cwd: str | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env, cwd=cwd)
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


FIRST_REQUEST_MIN_RUNS = 20


def first_request_rows(base: list[str], env: dict[str, str], runs: int) -> None:
    """Both commands, interleaved run by run, so a change in the machine's load hits both alike; at least
    FIRST_REQUEST_MIN_RUNS runs each, since the two are within a few percent of each other and a 10-run median
    on a shared machine moves by about as much."""
    runs = max(runs, FIRST_REQUEST_MIN_RUNS)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
    from fakeapi import FakeAPIServer, Turn

    with FakeAPIServer() as server, tempfile.TemporaryDirectory() as project:
        server.add(Turn(text="hi"), repeat=True)
        api_env = {name: value for name, value in env.items() if not name.startswith(("OPENAI_", "ANTHROPIC_"))}
        api_env.update({"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "sk-ant-bench-dummy"})
        commands = {"run 1st req": [*base, "run", "-P", "minimal", "hi"],
                    "sdk 1st req": [sys.executable, "-c", PLAIN_REQUEST]}
        samples: dict[str, list[float]] = {name: [] for name in commands}
        for command in commands.values():
            time_to_first_request(command, api_env, project, server)  # warm the OS file cache
        for _ in range(runs):
            for name, command in commands.items():
                samples[name].append(time_to_first_request(command, api_env, project, server))
        for name, values in samples.items():
            _report(name, values)
        run, sdk = samples.values()
        print(f"run / sdk    {statistics.median(run) / statistics.median(sdk):.2f}x (medians of {runs} runs), "
              f"{min(run) / min(sdk):.2f}x (minimums)")


def compile_app_bytecode() -> None:
    """Write the app's and bundled modules' .pyc files, as `pip install` does for an installed package.

    An editable checkout run with PYTHONDONTWRITEBYTECODE (set in some shells and CI images) would otherwise
    compile amplifier's sources on every start (about 70 ms) while the SDK's, installed by pip, are compiled:
    the comparison would measure the environment, not the program."""
    import compileall

    import amplifier_cli
    import amplifier_core

    roots = [Path(amplifier_cli.__file__).parent, Path(amplifier_core.__file__).parent,
             Path(__file__).resolve().parents[1] / "modules"]
    for root in roots:
        if root.is_dir():
            compileall.compile_dir(str(root), quiet=1)


def run_with_rusage(command: list[str], env: dict[str, str], cwd: str) -> tuple[float, int]:
    """(wall seconds, peak RSS in bytes) of one run of ``command``, from wait4's rusage of that child alone."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited with {child.returncode}")
    return elapsed, usage.ru_maxrss * 1024  # Linux reports kilobytes


def rss_rows(base: list[str], env: dict[str, str], runs: int) -> None:
    """Peak RSS of `amplifier run -P minimal "hi"` (provider-anthropic, the real SDK) against the fake server,
    beside the plain SDK script."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
    from fakeapi import FakeAPIServer, Turn

    with FakeAPIServer() as server, tempfile.TemporaryDirectory() as project:
        server.add(Turn(text="hi"), repeat=True)
        api_env = {name: value for name, value in env.items() if not name.startswith(("OPENAI_", "ANTHROPIC_"))}
        api_env.update({"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "sk-ant-bench-dummy"})
        for name, command in (
            ("run peak RSS", [*base, "run", "-P", "minimal", "hi"]),
            ("sdk peak RSS", [sys.executable, "-c", PLAIN_REQUEST]),
        ):
            peaks = [run_with_rusage(command, api_env, project)[1] for _ in range(max(3, runs // 3))]
            print(f"{name:<12} median {statistics.median(peaks) / 2**20:7.1f} MB   max {max(peaks) / 2**20:7.1f} MB")


# A profile with the scripted model, so resume is timed without network or SDK imports.
SCRIPTED_PROFILE = """
profile:
  name: bench-scripted
  description: scripted model for resume benchmarks
session:
  orchestrator: {module: loop-basic}
  context: {module: context-simple}
providers:
  - module: provider-scripted
    config: {script: ["ok"], repeat_last: true}
instruction: You are a benchmark.
"""


def history_lines(message_count: int) -> list[str]:
    """Transcript lines of a long session: rounds of user prompt, assistant tool call, tool result, answer."""
    lines = []
    for index in range(message_count // 4):
        call_id = f"toolu_{index:06d}"
        stamp = {"timestamp": "2026-11-20T10:00:00.000+00:00"}
        round_messages = [
            {"role": "user", "content": f"Please look at file number {index} and summarise it.", "metadata": stamp},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Reading it now."},
                {"type": "tool_call", "id": call_id, "name": "read_file", "input": {"file_path": f"src/f{index}.py"}},
            ], "tool_calls": [{"id": call_id, "tool": "read_file", "arguments": {"file_path": f"src/f{index}.py"}}],
             "metadata": stamp},
            {"role": "tool", "tool_call_id": call_id, "name": "read_file",
             "content": "def f():\n    return 42\n" * 12, "metadata": stamp},
            {"role": "assistant", "content": [{"type": "text", "text": f"File {index} defines f, returning 42."}],
             "metadata": stamp},
        ]
        lines.extend(json.dumps(message) + "\n" for message in round_messages)
    return lines


def _session_id(home: Path, project: str) -> str:
    found = sorted((home / "data" / "sessions").iterdir(), key=lambda path: path.stat().st_mtime)
    return found[-1].name


def resume_rows(base: list[str], env: dict[str, str], runs: int, message_count: int = 10_000) -> None:
    """Fresh run vs resume of a ``message_count`` session (then one more turn), and `session show` of it vs a
    small session; all with the scripted provider."""
    with tempfile.TemporaryDirectory() as project:
        home = Path(env["AMPLIFIER_HOME"])
        profiles = Path(project) / ".amplifier" / "profiles"
        profiles.mkdir(parents=True)
        (profiles / "bench-scripted.yaml").write_text(SCRIPTED_PROFILE, encoding="utf-8")
        run = [*base, "run", "-P", "bench-scripted"]
        subprocess.run([*run, "small session"], env=env, cwd=project, check=True, capture_output=True)
        small = _session_id(home, project)
        subprocess.run([*run, "big session"], env=env, cwd=project, check=True, capture_output=True)
        big = _session_id(home, project)
        transcript = home / "data" / "sessions" / big / "transcript.jsonl"
        with open(transcript, "a", encoding="utf-8") as handle:
            handle.writelines(history_lines(message_count))
        size = transcript.stat().st_size
        print(f"resume: a session of {message_count} messages ({size / 2**20:.1f} MB transcript)")
        for name, command in (
            ("run fresh", [*run, "hi"]),
            ("run resume", [*base, "run", "--resume", big, "hi"]),
            ("show small", [*base, "session", "show", small]),
            ("show big", [*base, "session", "show", big]),
        ):
            time_once(command, env, cwd=project)  # warm the OS file cache
            _report(name, [time_once(command, env, cwd=project) for _ in range(runs)])


def _report(name: str, samples: list[float]) -> None:
    print(
        f"{name:<12} median {statistics.median(samples) * 1000:7.1f} ms   "
        f"min {min(samples) * 1000:7.1f} ms   max {max(samples) * 1000:7.1f} ms"
    )


GROUPS = ["flags", "chat", "request", "resume", "rss"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--only", nargs="*", choices=GROUPS, default=GROUPS, help="row groups to run")
    args = parser.parse_args()
    base = amplifier_command()
    compile_app_bytecode()
    with tempfile.TemporaryDirectory() as home:  # never touch the real user's settings
        env = {**os.environ, "AMPLIFIER_HOME": home}
        print(f"command: {' '.join(base)}  runs: {args.runs}")
        if "flags" in args.only:
            for name, extra in CASES:
                time_once(base + extra, env)  # warm the OS file cache
                samples = [time_once(base + extra, env) for _ in range(args.runs)]
                _report(name, samples)
        if "chat" in args.only:
            chat_env = {**env, "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": env.get("TERM", "xterm-256color")}
            with tempfile.TemporaryDirectory() as project:
                time_to_prompt(base, chat_env, project)  # warm the OS file cache
                runs = [time_to_prompt(base, chat_env, project) for _ in range(args.runs)]
            _report("chat prompt", [prompt for prompt, _ in runs])
            _report("chat ready", [ready for _, ready in runs])
        if "request" in args.only:
            first_request_rows(base, env, args.runs)
        if "resume" in args.only:
            resume_rows(base, env, args.runs)
        if "rss" in args.only:
            rss_rows(base, env, args.runs)


if __name__ == "__main__":
    main()
