"""Test helpers: a scratch project with real hook scripts, and hook-shell mounted on a real coordinator pointed at
it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import amplifier_module_hook_shell as hook_shell

from amplifier_core import AmplifierSession
from amplifier_core.testing import MockApprovalSystem, MockContextManager, MockCoordinator, MockDisplaySystem

RECORD = ('"$PY" -c \'import os, sys; line = sys.stdin.read().strip() + "\\n"; '
          'fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT); os.write(fd, line.encode())\' '
          '"$AMPLIFIER_PROJECT_DIR/events.jsonl"')
"""A script line appending the event JSON from stdin to ``events.jsonl`` as one line in one write, so hooks that run
at once (parallel tool calls) never interleave; read back with ``HookLab.read_events``."""

SCRIPT_PRELUDE = f"""#!/bin/bash
PY={json.dumps(sys.executable)}
# jget PATH: the value at PATH (dotted keys) of the JSON on stdin, raw for strings, else compact JSON
jget() {{ "$PY" -c 'import json, sys
value = json.load(sys.stdin)
for key in sys.argv[1].split("."):
    value = value.get(key) if isinstance(value, dict) else None
print(value if isinstance(value, str) else json.dumps(value))' "$1"; }}
# jeval EXPR: print json.dumps(EXPR) with the JSON on stdin bound to d (no jq needed)
jeval() {{ "$PY" -c 'import json, sys; d = json.load(sys.stdin); print(json.dumps(eval(sys.argv[1])))' "$1"; }}
"""


class HookLab:
    def __init__(self, project: Path, user_config: Path) -> None:
        self.project = project
        self.user_config = user_config
        self.hooks_dir = project / ".amplifier" / "hooks"
        self.hooks_dir.mkdir(parents=True, exist_ok=True)
        self.approvals = MockApprovalSystem("Deny")
        self.mounted: list[MockCoordinator] = []

    def script(self, name: str, body: str) -> str:
        """An executable bash script in the project's hooks dir (with ``jget``/``jeval`` for JSON); returns its
        absolute path."""
        path = self.hooks_dir / name
        path.write_text(SCRIPT_PRELUDE + body.strip() + "\n", encoding="utf-8")
        path.chmod(0o755)
        return str(path)

    def write_hooks(self, hooks: dict[str, Any], path: Path | None = None) -> Path:
        path = path or self.hooks_dir / "hooks.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
        return path

    async def mount(self, config: dict[str, Any] | None = None, *, capabilities: bool = True,
                    trusted: bool = True) -> MockCoordinator:
        """Mount hook-shell as the app would; ``trusted``: whether the user trusts the project's own hooks."""
        coordinator = MockCoordinator(approval_system=self.approvals)
        if capabilities:
            coordinator.register_capability("session.project_dir", str(self.project))
            coordinator.register_capability("session.project_trusted", trusted)
            coordinator.register_capability("app.user_config_dir", str(self.user_config))
            coordinator.register_capability("session.transcript_path", str(self.project / "transcript.jsonl"))
        await coordinator.mount("context", MockContextManager())
        cleanup = await hook_shell.mount(coordinator, config or {})
        coordinator.register_cleanup(cleanup)
        self.mounted.append(coordinator)
        return coordinator

    async def close(self) -> None:
        """Unmount everything mounted, as a session's end does (the hook env folders go with it)."""
        for coordinator in reversed(self.mounted):
            await coordinator.cleanup()
        self.mounted.clear()

    def read_events(self, name: str = "events.jsonl") -> list[dict[str, Any]]:
        path = self.project / name
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def one_hook(command: str, matcher: str | None = None, **extra: Any) -> list[dict[str, Any]]:
    """The matcher-group list for one command hook."""
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **extra}]}
    if matcher is not None:
        group["matcher"] = matcher
    return [group]


def messages(coordinator: MockCoordinator) -> list[str]:
    return [entry["message"] for entry in coordinator.display_system.messages]


def plan(script: list[Any], *, hooks: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "session": {"orchestrator": "loop-basic", "context": "context-simple"},
        "providers": [{"module": "provider-scripted", "config": {"script": script}}],
        "tools": [{"module": "tool-bash"}],
        "hooks": hooks,
    }


async def run_session(lab: HookLab, mount_plan: dict[str, Any], prompt: str,
                      approvals: MockApprovalSystem | None = None, *, capabilities: dict[str, Any] | None = None,
                      ) -> tuple[AmplifierSession, list[dict[str, Any]]]:
    """One turn of a real session (``plan``'s modules) in the lab's trusted project; returns the session and the
    context's messages after it."""
    session = AmplifierSession(mount_plan, approval_system=approvals or MockApprovalSystem("Allow"),
                               display_system=MockDisplaySystem())
    for name, value in {"session.working_dir": str(lab.project), "session.project_dir": str(lab.project),
                        "session.project_trusted": True, **(capabilities or {})}.items():
        session.coordinator.register_capability(name, value)
    await session.initialize()
    try:
        await session.execute(prompt)
        return session, list(await session.coordinator.get("context").get_messages())
    finally:
        await session.cleanup()
