"""`--sandbox read-only` (or a profile's `sandbox: read-only`) holds for the file tools too: write_file is
refused with a message saying how to allow changes, and the file is not created. Real `amplifier run`,
provider-scripted."""

from __future__ import annotations

import yaml

SCRIPT = [
    {"tool_calls": [{"name": "write_file", "arguments": {"file_path": "planted.txt", "content": "x\n"}}]},
    {"text": "The session is read-only.", "match": "read-only"},
    {"text": "Wrote planted.txt."},
]


def _tool_results(e2e) -> list[str]:
    messages = e2e.transcript(e2e.session_dirs()[-1])
    return [str(message.get("content")) for message in messages if message.get("role") == "tool"]


def test_sandbox_read_only_refuses_write_file(e2e) -> None:
    e2e.profile("files", provider="scripted", script=SCRIPT, tools=("tool-filesystem", "tool-bash"),
                hooks=("hooks-streaming-ui",))
    result = e2e.run("run", "-P", "files", "--sandbox", "read-only", "plant a file")
    assert result.returncode == 0, result.stderr
    assert "The session is read-only." in result.stdout
    assert not (e2e.project / "planted.txt").exists()
    [refusal] = _tool_results(e2e)
    assert "this session is read-only" in refusal and "--sandbox workspace-write" in refusal


def test_a_profiles_read_only_sandbox_refuses_write_file_and_workspace_write_allows_it(e2e) -> None:
    path = e2e.profile("files", provider="scripted", script=SCRIPT, tools=("tool-filesystem",),
                       hooks=("hooks-streaming-ui",))
    document = yaml.safe_load(path.read_text())
    path.write_text(yaml.safe_dump({**document, "sandbox": "read-only"}, sort_keys=False))
    refused = e2e.run("run", "-P", "files", "plant a file")
    assert refused.returncode == 0, refused.stderr
    assert "The session is read-only." in refused.stdout and not (e2e.project / "planted.txt").exists()

    allowed = e2e.run("run", "-P", "files", "--sandbox", "workspace-write", "plant a file")
    assert allowed.returncode == 0, allowed.stderr
    assert (e2e.project / "planted.txt").read_text() == "x\n"
