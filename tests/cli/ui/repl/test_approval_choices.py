"""Each approval choice reaches its effect: hooks-approval asks, the chat or a one-shot approval system
answers, the kernel applies the answer. Real coordinator, real hooks-approval, real rule file."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import amplifier_module_hooks_approval as hooks_approval
import pytest
import yaml

from amplifier_cli.config.paths import AmplifierPaths
from amplifier_cli.ui.approval_systems import FixedApproval, TerminalApproval
from amplifier_cli.ui.repl.approval import ReplApproval
from amplifier_core.testing import MockCoordinator
from amplifier_support.approval_choices import ApprovalChoice
from amplifier_support.capability_names import (
    APPROVAL_INTERACTIVE,
    SANDBOX_RUN_UNCONFINED_ONCE,
    SANDBOX_STATUS,
    SESSION_WORKING_DIR,
)

COMMAND = "touch made.txt"


class Gate:
    """hooks-approval mounted on a coordinator whose shell tool is confined and records one-shot grants."""

    def __init__(self, approval_system: object, project: Path) -> None:
        self.coordinator = MockCoordinator(approval_system=approval_system)
        self.granted: list[str] = []
        self.coordinator.register_capability(APPROVAL_INTERACTIVE, True)
        self.coordinator.register_capability(SESSION_WORKING_DIR, str(project))
        self.coordinator.register_capability(SANDBOX_STATUS, lambda: {"confined": True})
        self.coordinator.register_capability(SANDBOX_RUN_UNCONFINED_ONCE,
                                              lambda command: self.granted.append(command) or True)

    async def mount(self) -> Gate:
        self.coordinator.register_cleanup(await hooks_approval.mount(self.coordinator, {}))
        return self

    async def run_command(self) -> tuple[str, object]:
        """The kernel's path for one shell call: the hook's verdict, then the answer applied."""
        asked = await self.coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {"command": COMMAND},
                                                               "tool_call_id": "c1"})
        if asked.action != "ask_user":
            return asked.action, None
        applied = await self.coordinator.process_hook_result(asked, "tool:pre", "hooks-approval")
        return applied.action, asked


@pytest.fixture
def paths(project_dir: Path) -> AmplifierPaths:
    return AmplifierPaths.discover(cwd=project_dir)


def _saved_rules(paths: AmplifierPaths) -> list:
    file = paths.config_dir / "project-approvals.yaml"
    return [rule for entry in (yaml.safe_load(file.read_text()) or {}).values()
            for rule in entry["rules"]] if file.exists() else []


async def _chat_answering(choice: ApprovalChoice, paths: AmplifierPaths) -> tuple[Gate, ReplApproval]:
    approval = ReplApproval(paths)
    seen: list[list[str]] = []

    async def pick(options: list[str]) -> str:
        seen.append(options)
        label = choice.among(options)
        assert label is not None, f"{choice} not offered in {options}"
        return label

    approval.choose = pick
    gate = await Gate(approval, paths.cwd).mount()
    approval.coordinator = gate.coordinator
    return gate, approval


async def test_chat_allow_once_runs_the_call_and_saves_nothing(paths: AmplifierPaths) -> None:
    gate, _ = await _chat_answering(ApprovalChoice.ALLOW_ONCE, paths)
    assert (await gate.run_command())[0] == "continue"
    assert gate.granted == [] and _saved_rules(paths) == []
    assert (await gate.run_command())[1] is not None  # asked again next time


async def test_chat_always_allow_saves_a_rule_and_the_same_call_is_not_asked_again(paths: AmplifierPaths) -> None:
    gate, _ = await _chat_answering(ApprovalChoice.ALWAYS_ALLOW, paths)
    assert (await gate.run_command())[0] == "continue"
    assert [rule.get("command") for rule in _saved_rules(paths)] == [COMMAND]
    assert await gate.run_command() == ("continue", None)  # the live rule answers; nobody is asked
    assert gate.granted == []


async def test_chat_deny_stops_the_call(paths: AmplifierPaths) -> None:
    gate, _ = await _chat_answering(ApprovalChoice.DENY, paths)
    assert (await gate.run_command())[0] == "deny"
    assert gate.granted == [] and _saved_rules(paths) == []


async def test_chat_run_outside_the_sandbox_grants_that_command_once_and_allows_it(paths: AmplifierPaths) -> None:
    gate, _ = await _chat_answering(ApprovalChoice.RUN_UNCONFINED_ONCE, paths)
    action, asked = await gate.run_command()
    assert ApprovalChoice.RUN_UNCONFINED_ONCE.label in asked.approval_options  # type: ignore[union-attr]
    assert action == "continue" and gate.granted == [COMMAND]
    assert _saved_rules(paths) == []


async def test_headless_allow_answers_allow_once_never_always_or_outside_the_sandbox(paths: AmplifierPaths) -> None:
    answers = FixedApproval(True, "--approval allow", stream=io.StringIO())
    gate = await Gate(answers, paths.cwd).mount()
    assert (await gate.run_command())[0] == "continue"
    assert [ApprovalChoice.of(choice) for _prompt, choice in answers.decisions] == [ApprovalChoice.ALLOW_ONCE]
    assert gate.granted == [] and _saved_rules(paths) == []


async def test_headless_deny_answers_deny(paths: AmplifierPaths) -> None:
    answers = FixedApproval(False, "--approval deny", stream=io.StringIO())
    gate = await Gate(answers, paths.cwd).mount()
    assert (await gate.run_command())[0] == "deny"
    assert [ApprovalChoice.of(choice) for _prompt, choice in answers.decisions] == [ApprovalChoice.DENY]


@pytest.mark.parametrize(("typed", "action"), [("1", "continue"), ("3", "deny"), ("4", "deny"), ("always", "continue")])
async def test_terminal_prompt_never_offers_running_outside_the_sandbox(
        paths: AmplifierPaths, monkeypatch: pytest.MonkeyPatch, typed: str, action: str) -> None:
    shown = io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed + "\n"))
    gate = await Gate(TerminalApproval(stream=shown), paths.cwd).mount()
    assert (await gate.run_command())[0] == action
    assert "[3] Deny" in shown.getvalue() and ApprovalChoice.RUN_UNCONFINED_ONCE.label not in shown.getvalue()
    assert gate.granted == []
