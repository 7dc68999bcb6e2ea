"""Upstream Amplifier users' habits work here: every command line documented in upstream's CLI README
(tests/fixtures/upstream_cli_commands.yaml, in our words) runs as the installed `amplifier` against the
loopback fake API, and its effect is checked: settings written at the right scope, the bundle or provider the
next run uses, the tool's output."""

from __future__ import annotations

import json
import shlex
import stat
from pathlib import Path
from typing import Any

import pytest
import yaml
from fakeapi import Turn

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "upstream_cli_commands.yaml"
DOCUMENT = yaml.safe_load(FIXTURE.read_text(encoding="utf-8"))
ANSWER = "FAKE-ANSWER from the loopback API"


def _setting(e2e: Any, scope: str, key: str) -> tuple[bool, Any]:
    path = {"user": e2e.home / "config" / "settings.yaml",
            "project": e2e.project / ".amplifier" / "settings.yaml",
            "local": e2e.project / ".amplifier" / "settings.local.yaml"}[scope]
    node: Any = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else {}
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def _newest_session(e2e: Any) -> str:
    dirs = sorted(e2e.session_dirs(), key=lambda d: json.loads((d / "metadata.json").read_text())["created"])
    return dirs[-1].name if dirs else "no-session-yet"


def _check(e2e: Any, step: dict[str, Any], result: Any, subst: Any) -> None:
    expect = step.get("expect") or {}
    where = f"{step['command']}\nstdout: {result.stdout[-3000:]}\nstderr: {result.stderr[-3000:]}"
    assert result.returncode == expect.get("exit", 0), where
    for text in expect.get("stdout", []):
        assert subst(text) in result.stdout, where
    for text in expect.get("stderr", []):
        assert subst(text) in result.stderr, where
    if expect.get("json"):
        json.loads(result.stdout)
    if "setting" in expect:
        wanted = expect["setting"]
        present, value = _setting(e2e, wanted["scope"], wanted["key"])
        if wanted.get("absent"):
            assert not present, f"{where}\n{wanted['key']} is still {value!r}"
        else:
            assert present, f"{where}\n{wanted['key']} not written at {wanted['scope']} scope"
            if "equals" in wanted:
                assert value == wanted["equals"], where
            if "includes" in wanted:
                assert wanted["includes"] in json.dumps(value), f"{where}\n{value!r}"
    if "request" in expect:
        request = e2e.server.requests[-1]
        wanted = expect["request"]
        if "api" in wanted:
            assert request.api == wanted["api"], where
        if "model" in wanted:
            assert request.model == wanted["model"], where
        if "max_tokens" in wanted:
            body = request.json
            assert wanted["max_tokens"] in (body.get("max_tokens"), body.get("max_output_tokens")), body
        if "system_contains" in wanted:
            assert wanted["system_contains"] in request.system_text, where
    if "file" in expect:
        path = Path(subst(expect["file"]["path"]))
        path = path if path.is_absolute() else e2e.project / path
        if expect["file"].get("absent"):
            assert not path.exists(), where
        else:
            assert expect["file"]["contains"] in path.read_text(encoding="utf-8"), where
    if "key_store" in expect:
        store = e2e.home / "config" / "keys.env"
        assert expect["key_store"] in store.read_text(encoding="utf-8")
        assert stat.S_IMODE(store.stat().st_mode) == 0o600
        for settings in (e2e.home / "config").glob("settings*.yaml"):
            assert "sk-ant-saved" not in settings.read_text(encoding="utf-8")


@pytest.mark.parametrize("section", list(DOCUMENT["sections"]))
def test_upstream_command_lines_have_their_documented_effect(e2e_api: Any, tmp_path: Path, section: str) -> None:
    e2e_api.server.add(Turn(text=ANSWER), repeat=True)
    for name, text in DOCUMENT["files"].items():
        target = e2e_api.project / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    (e2e_api.project / "secret").mkdir()
    (e2e_api.project / "secret" / "key.txt").write_text("hidden\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()

    def subst(text: str) -> str:
        return (text.replace("<project>", str(e2e_api.project)).replace("<outside>", str(outside))
                .replace("<session8>", _newest_session(e2e_api)[:8]).replace("<session>", _newest_session(e2e_api)))

    for step in DOCUMENT["sections"][section]:
        words = shlex.split(subst(step["command"]))
        assert words[0] == "amplifier"
        result = e2e_api.run(*words[1:], stdin=step.get("stdin"))
        _check(e2e_api, step, result, subst)


def test_every_upstream_command_group_is_covered() -> None:
    """The fixture names each of upstream's command groups at least once."""
    commands = " ".join(step["command"] for steps in DOCUMENT["sections"].values() for step in steps)
    for group in ("run", "continue", "resume", "session", "bundle", "provider", "module", "source", "tool", "init",
                  "allowed-dirs", "denied-dirs", "notify", "update", "routing", "profile", "agents", "collection"):
        assert f"amplifier {group}" in commands, group
