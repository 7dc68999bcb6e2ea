"""End-to-end harness: run the INSTALLED `amplifier` command as a subprocess in a scratch project, against the
fake API server (ANTHROPIC_BASE_URL / OPENAI_BASE_URL) or provider-scripted, with test profiles written to
<project>/.amplifier/profiles/.

Every process gets a copy of os.environ (the autouse fixture already points AMPLIFIER_HOME and HOME at scratch
directories) with real credentials and base URLs removed, so nothing can reach a real service."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fakeapi import FakeAPIServer
from warmstart import amplifier_command, real_amplifier_command

TIMEOUT = 60  # a run that takes longer has hung (e.g. waiting on an approval nobody can give)

ANTHROPIC_KEY = "sk-ant-e2e-dummy-0000000000000000000000000000"
OPENAI_KEY = "sk-e2e-dummy-openai-000000000000000000000000"

# Provider configs that keep retries tiny, so failure tests finish fast.
FAST_RETRIES = {"max_retries": 1, "min_retry_delay": 0.01, "max_retry_delay": 0.02, "retry_jitter": False}

_SCRUBBED = ("API_KEY", "BASE_URL", "AUTH_TOKEN")


def installed_amplifier() -> list[str]:
    """The installed `amplifier` (what users run), started warm (tests/support/warmstart)."""
    return amplifier_command()


def clean_env() -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not any(name.endswith(suffix) for suffix in _SCRUBBED) and not name.startswith("AMPLIFIER_MODULE_")
    }
    env.update({"NO_COLOR": "1", "COLUMNS": "200", "PYTHONUNBUFFERED": "1"})
    env.pop("FORCE_COLOR", None)
    return env


def _machine_output(args: tuple[str, ...]) -> bool:
    """`amplifier run/continue ... -o json|stream-json`: stdout is lines the published schema describes."""
    if not args or args[0] not in ("run", "continue"):
        return False
    pairs = itertools.pairwise(args)
    return any(flag in ("-o", "--output-format") and value in ("json", "stream-json") for flag, value in pairs) or \
        any(arg in ("--output-format=json", "--output-format=stream-json") for arg in args)


def in_thread(action: Callable[[], Any], what: str, wait: float = 30.0) -> Any:
    """Run a blocking FIFO open/read with a deadline, so a broken run fails the test instead of hanging it."""
    box: list[str] = []
    worker = threading.Thread(target=lambda: box.append(action()), daemon=True)
    worker.start()
    worker.join(wait)
    assert box, f"timed out waiting for {what}"
    return box[0]


class E2E:
    """One scratch project plus helpers to write profiles and run `amplifier` in it."""

    def __init__(self, project: Path, home: Path, server: FakeAPIServer | None) -> None:
        self.project = project
        self.home = home
        self.server = server
        self.env = clean_env()
        if server is not None:
            self.env.update(
                {
                    "ANTHROPIC_BASE_URL": server.base_url,
                    "OPENAI_BASE_URL": server.openai_base_url,
                    "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
                    "OPENAI_API_KEY": OPENAI_KEY,
                }
            )
        self._children: list[subprocess.Popen[str]] = []
        self.trust_project = True  # trust what the project ships before each run (False: a stranger's repo)

    def trust_now(self) -> None:
        """Trust what the project ships now (unless the test plays a stranger: `trust_project = False`)."""
        if self.trust_project:
            from testkit.trust import trust_project_now

            trust_project_now(self.project)

    # -- profiles ----------------------------------------------------------------------------------
    def profile(
        self,
        name: str,
        *,
        provider: str = "anthropic",
        provider_config: dict[str, Any] | None = None,
        script: list[Any] | None = None,
        tools: tuple[str, ...] = ("tool-filesystem",),
        hooks: tuple[str, ...] = ("hooks-streaming-ui", "hooks-logging", "hooks-redaction"),
        hook_config: dict[str, dict[str, Any]] | None = None,
        orchestrator: str = "loop-streaming",
        instruction: str = "SYSTEM-MARKER: you are the e2e test assistant.",
        extra_providers: list[dict[str, Any]] | None = None,
        user: bool = False,
    ) -> Path:
        """Write <project>/.amplifier/profiles/<name>.yaml (``user``: the user's profiles dir) and return its
        path."""
        if provider == "scripted":
            config = {"script": script or []}
        else:
            config = dict(FAST_RETRIES)
        config.update(provider_config or {})
        hook_config = hook_config or {}
        document = {
            "profile": {"name": name, "description": f"e2e test profile ({provider})"},
            "session": {"orchestrator": {"module": orchestrator}, "context": {"module": "context-simple"}},
            "providers": [{"module": f"provider-{provider}", "config": config}, *(extra_providers or [])],
            "tools": [{"module": tool} for tool in tools],
            "hooks": [
                {"module": hook, **({"config": hook_config[hook]} if hook in hook_config else {})} for hook in hooks
            ],
            "instruction": instruction,
        }
        base = self.home / "config" if user else self.project / ".amplifier"
        path = base / "profiles" / f"{name}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
        return path

    # -- running -----------------------------------------------------------------------------------
    def run(
        self,
        *args: str,
        stdin: str | None = None,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run `amplifier ARGS` to completion; stdin is /dev/null unless text is given (never a terminal).
        The stdout of a `-o json` / `-o stream-json` run is checked against the published schema (docs/schemas)."""
        self.trust_now()
        result = subprocess.run(
            [*installed_amplifier(), *args],
            input=stdin,
            stdin=subprocess.DEVNULL if stdin is None else None,
            capture_output=True,
            text=True,
            cwd=cwd or self.project,
            env={**self.env, **(env or {})},
            timeout=TIMEOUT,
            check=False,
        )
        if _machine_output(args):
            from testkit.event_schemas import assert_stream_lines_valid

            assert_stream_lines_valid(result.stdout)
        return result

    def spawn(self, *args: str, cwd: Path | None = None, cold: bool = False) -> subprocess.Popen[str]:
        """Start `amplifier ARGS` without waiting (for signals); killed at teardown if still running. ``cold``: the
        console script itself, for a test that needs the process's own pid (a warm start's runs in a child)."""
        self.trust_now()
        child = subprocess.Popen(
            [*(real_amplifier_command() if cold else installed_amplifier()), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd or self.project,
            env=self.env,
        )
        self._children.append(child)
        return child

    def acp(self, *args: str, client: Any = None, fs: bool = False, cwd: Path | None = None) -> Any:
        """`amplifier ARGS... acp` spawned with the ACP SDK's client connected (tests/support/acpclient); use as
        ``async with e2e.acp("-P", "x") as editor``. Every message the agent sends is checked against the
        SDK's schema."""
        from acpclient import acp_agent

        self.trust_now()
        return acp_agent(installed_amplifier(), *args, cwd=cwd or self.project, env=self.env, client=client, fs=fs)

    def run_in_terminal(self, *args: str) -> tuple[int | None, str]:
        """Run `amplifier ARGS` in a pseudo-terminal (stdin and stdout are a tty); returns (exit status, output)."""
        import pexpect
        from testkit.terminal import spawn_in_terminal

        self.trust_now()
        command = installed_amplifier()
        child = spawn_in_terminal(command[0], [*command[1:], *args], cwd=str(self.project), env=self.env,
                                  encoding="utf-8", dimensions=(40, 160), timeout=TIMEOUT)
        child.expect(pexpect.EOF)
        child.close()
        return child.exitstatus, child.before

    def close(self) -> None:
        for child in self._children:
            if child.poll() is None:
                child.send_signal(signal.SIGKILL)
            child.communicate(timeout=TIMEOUT)

    # -- the store ---------------------------------------------------------------------------------
    @property
    def sessions_dir(self) -> Path:
        return self.home / "data" / "sessions"

    def session_dirs(self) -> list[Path]:
        if not self.sessions_dir.exists():
            return []
        return sorted(path for path in self.sessions_dir.iterdir() if path.is_dir())

    def only_session(self) -> Path:
        dirs = self.session_dirs()
        assert len(dirs) == 1, f"expected one session, found {[d.name for d in dirs]}"
        return dirs[0]

    def metadata(self, session: Path) -> dict[str, Any]:
        return json.loads((session / "metadata.json").read_text(encoding="utf-8"))

    def transcript(self, session: Path) -> list[dict[str, Any]]:
        """The messages of the session's transcript (each line is a message plus its schema_version)."""
        lines = (session / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
        messages = [json.loads(line) for line in lines if line.strip()]
        for message in messages:
            assert message.pop("schema_version") == 1
        return messages

    @staticmethod
    def assert_tool_pairs_complete(messages: list[dict[str, Any]]) -> None:
        """Every tool call of an assistant message is answered by a tool message before the next non-tool one."""
        for index, message in enumerate(messages):
            if message.get("role") != "assistant":
                continue
            calls = [call["id"] for call in message.get("tool_calls") or []]
            answered = set()
            for later in messages[index + 1 :]:
                if later.get("role") != "tool":
                    break
                answered.add(later.get("tool_call_id"))
            missing = [call for call in calls if call not in answered]
            assert not missing, f"tool calls without results at message {index}: {missing}"


@pytest.fixture
def e2e(tmp_path: Path, amplifier_home: Path) -> Iterator[E2E]:
    """A scratch project for provider-scripted runs (no server)."""
    project = tmp_path / "project"
    (project / ".amplifier").mkdir(parents=True)
    harness = E2E(project, amplifier_home, None)
    yield harness
    harness.close()


@pytest.fixture
def e2e_api(tmp_path: Path, amplifier_home: Path, fake_api: FakeAPIServer) -> Iterator[E2E]:
    """A scratch project whose runs talk to this test's fake API server with dummy keys."""
    project = tmp_path / "project"
    (project / ".amplifier").mkdir(parents=True)
    harness = E2E(project, amplifier_home, fake_api)
    yield harness
    harness.close()
