"""The table-driven corpus (shell_corpus.py): every line's decision and reason, for the read-only judgement, for
saved rules, and for tool-bash's deny list."""

from __future__ import annotations

import runpy
import subprocess
from pathlib import Path

import pytest
from amplifier_module_hooks_approval.rules import Places, Rule, RuleBook
from amplifier_module_tool_bash.policy import CommandPolicy

_TABLE = runpy.run_path(str(Path(__file__).with_name("shell_corpus.py")))  # data, not a test module
READ_ONLY, SAVED_RULES, DENY_LIST, RULES = (_TABLE[name] for name in ("READ_ONLY", "SAVED_RULES", "DENY_LIST",
                                                                     "RULES"))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _book(rules: list[dict]) -> RuleBook:
    return RuleBook(rules=[Rule.model_validate(rule) for rule in rules], ask_tools=["bash"], default_action="allow",
                    shell_tools=["bash"], read_only_commands=[])


def test_the_corpus_is_large_enough_and_has_no_duplicates() -> None:
    rows = [(name, line) for name, table in (("ro", READ_ONLY), ("rules", SAVED_RULES), ("deny", DENY_LIST))
            for line, _, _ in table]
    assert len(rows) >= 200 and len(set(rows)) == len(rows)


@pytest.mark.parametrize(("line", "expected", "fragment"), READ_ONLY)
def test_read_only_judgement(project: Path, line: str, expected: str, fragment: str) -> None:
    verdict = _book([]).judge("bash", {"command": line}, Places(str(project), str(project)))
    shown = f"{verdict.reason} | {' | '.join(verdict.labels)}"
    assert verdict.action == expected, (line, shown)
    assert fragment in shown, (line, shown)


@pytest.mark.parametrize(("line", "expected", "fragment"), SAVED_RULES)
def test_saved_rules(project: Path, line: str, expected: str, fragment: str) -> None:
    verdict = _book(RULES).judge("bash", {"command": line}, Places(str(project), str(project)))
    assert verdict.action == expected, (line, verdict.reason)
    assert fragment in verdict.reason, (line, verdict.reason)


@pytest.mark.parametrize(("line", "expected", "rule"), DENY_LIST)
def test_deny_list(line: str, expected: str, rule: str) -> None:
    decision = CommandPolicy().check(line)
    assert decision.allowed == (expected == "allow"), (line, decision)
    assert decision.rule == rule, (line, decision)
