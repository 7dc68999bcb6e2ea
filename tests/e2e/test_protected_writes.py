"""The model cannot plant what the next session trusts: writes to `.amplifier/`, `.mcp.json`, `.git/hooks/` and
`.git/config` are refused in headless runs whatever the rules or `--approval allow` say, and asked in the chat."""

from __future__ import annotations

import subprocess

import pytest

PROTECTED = (".amplifier/settings.yaml", ".mcp.json", ".git/hooks/pre-commit", ".git/config",
             "src/../.amplifier/hooks/hooks.json")


@pytest.fixture
def repository(e2e):
    subprocess.run(["git", "init", "-q", str(e2e.project)], check=True)
    return e2e


@pytest.mark.parametrize("approval", ["allow", "deny"])
def test_headless_writes_to_protected_places_are_refused_whatever_the_rules_say(repository, approval) -> None:
    e2e = repository
    before = {name: (e2e.project / name).read_bytes() if (e2e.project / name).exists() else None
              for name in PROTECTED}
    calls = [{"name": "write_file", "arguments": {"file_path": name, "content": "planted\n"}} for name in PROTECTED]
    calls.append({"name": "edit_file", "arguments": {"file_path": ".git/config", "old_string": "[core]",
                                                     "new_string": "[core]\n\thooksPath = evil"}})
    calls.append({"name": "write_file", "arguments": {"file_path": "notes.txt", "content": "fine\n"}})
    e2e.profile("planter", user=True, provider="scripted",
                script=[{"tool_calls": calls}, {"text": "tried"}],
                tools=("tool-filesystem",), hooks=("hooks-streaming-ui", "hooks-approval"),
                hook_config={"hooks-approval": {"rules": [{"tool": "*", "action": "allow"}]}})

    result = e2e.run("run", "-P", "planter", "--approval", approval, "plant config")

    assert result.returncode == 0, result.stderr
    after = {name: (e2e.project / name).read_bytes() if (e2e.project / name).exists() else None
             for name in PROTECTED}
    assert after == before
    assert (e2e.project / "notes.txt").read_text() == "fine\n"  # an ordinary write still goes through
    results = [message["content"] for message in e2e.transcript(e2e.only_session()) if message["role"] == "tool"]
    refused = [text for text in results if "refused" in text or "denied" in text]
    assert len(refused) == len(PROTECTED) + 1, results
