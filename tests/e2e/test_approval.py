"""Approval without a terminal: a hook asking the user (ask_user) is denied with a message both the model and the
user can read, and the run never waits; `--approval allow` grants it. The gating hook is a tiny workspace module
in .amplifier/modules/, exercising the same app path as hooks-approval."""

from __future__ import annotations

import json
import textwrap

import pytest

GATE_MODULE = '''
"""Test hook: every write_file call needs the user's approval."""
from amplifier_core import HookResult

__amplifier_module_type__ = "hook"


async def mount(coordinator, config=None):
    async def gate(event, data):
        if data.get("tool_name") != "write_file":
            return HookResult()
        path = (data.get("tool_input") or {}).get("file_path")
        return HookResult(action="ask_user", approval_prompt=f"Allow write_file to {path}?",
                          approval_options=["Allow", "Deny"], approval_timeout=600, approval_default="deny")

    return coordinator.hooks.register("tool:pre", gate, priority=0, name="e2e-approval-gate")
'''

SCRIPT = [
    {"tool_calls": [{"name": "write_file", "arguments": {"file_path": "gated.txt", "content": "x\n"}}]},
    {"text": "The write was denied.", "match": "denied"},
    {"text": "Wrote gated.txt."},
]


@pytest.fixture
def gated(e2e):
    package = e2e.project / ".amplifier" / "modules" / "hooks-e2e-gate" / "amplifier_module_hooks_e2e_gate"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(GATE_MODULE).lstrip())
    e2e.profile("gated", provider="scripted", script=SCRIPT, hooks=("hooks-streaming-ui", "hooks-e2e-gate"))
    return e2e


@pytest.mark.parametrize("flags", [[], ["--approval", "deny"]], ids=["no-terminal", "approval-deny"])
def test_a_gated_tool_is_denied_with_a_readable_message_and_the_run_finishes(gated, flags) -> None:
    result = gated.run("run", "-P", "gated", *flags, "write the file")  # stdin is /dev/null: nobody to ask
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The write was denied.\n"
    assert not (gated.project / "gated.txt").exists()
    assert "[approval] denied: Allow write_file to gated.txt?" in result.stderr
    if not flags:
        assert "--approval allow" in result.stderr  # says how to permit it next time
    tool_message = next(m for m in gated.transcript(gated.only_session()) if m["role"] == "tool")
    assert "denied" in tool_message["content"].lower()  # what the model was told


def test_approval_allow_grants_the_request_and_keeps_stdout_machine_readable(gated) -> None:
    result = gated.run("run", "-P", "gated", "--approval", "allow", "-o", "stream-json", "write the file")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert records[-1]["type"] == "result" and records[-1]["response"] == "Wrote gated.txt."
    assert (gated.project / "gated.txt").read_text() == "x\n"
    assert "[approval] approved" in result.stderr


def test_a_rule_saved_with_always_allow_applies_to_later_one_shot_runs(e2e) -> None:
    """The chat saves "Always allow" rules in local settings; a non-interactive run must honour them too."""
    e2e.profile("approving", provider="scripted", script=SCRIPT, hooks=("hooks-streaming-ui", "hooks-approval"))
    denied = e2e.run("run", "-P", "approving", "write the file")
    assert denied.stdout == "The write was denied.\n" and not (e2e.project / "gated.txt").exists()

    (e2e.project / ".amplifier" / "settings.local.yaml").write_text(
        "approval:\n  rules:\n    - {tool: write_file, args: {file_path: gated.txt}}\n"
    )
    allowed = e2e.run("run", "-P", "approving", "write the file")
    assert allowed.returncode == 0, allowed.stderr
    assert allowed.stdout == "Wrote gated.txt.\n"
    assert (e2e.project / "gated.txt").read_text() == "x\n"
    assert "[approval]" not in allowed.stderr  # nobody was asked


ACCEPT_SCRIPT = [
    {"tool_calls": [{"name": "write_file", "arguments": {"file_path": "notes.txt", "content": "kept\n"}},
                    {"name": "write_file", "arguments": {"file_path": ".amplifier/settings.yaml",
                                                         "content": "profile: {active: x}\n"}}]},
    {"text": "Done."},
]


def test_accept_edits_mode_writes_files_unasked_but_never_a_protected_place(e2e) -> None:
    """--mode accept-edits: an edit hooks-approval would ask about runs without a question; a protected place is
    still asked, and so refused where nobody can answer (here --approval deny)."""
    e2e.profile("editing", provider="scripted", script=ACCEPT_SCRIPT, hooks=("hooks-streaming-ui", "hooks-approval"))
    settings = e2e.project / ".amplifier" / "settings.yaml"
    before = settings.read_text() if settings.exists() else None
    result = e2e.run("run", "-P", "editing", "--mode", "accept-edits", "--approval", "deny", "write them")
    assert result.returncode == 0, result.stderr
    assert (e2e.project / "notes.txt").read_text() == "kept\n"
    assert (settings.read_text() if settings.exists() else None) == before
    tool_results = [m["content"] for m in e2e.transcript(e2e.only_session()) if m["role"] == "tool"]
    assert "Created notes.txt" in tool_results[0] and "denied" in tool_results[1].lower()

    plain = e2e.run("run", "-P", "editing", "--approval", "deny", "write them")  # without the mode: asked, denied
    assert plain.returncode == 0, plain.stderr
    assert "[approval] denied" in plain.stderr
