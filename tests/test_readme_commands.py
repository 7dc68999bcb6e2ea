"""The README's two commands are the project's contract with a new user; CI runs the test command.
Keep .ci/run and the README saying the same thing."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", quick_start, flags=re.S)]


def test_ci_runs_exactly_the_readme_test_command() -> None:
    test_command = _readme_commands()[1]
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_command in ci_lines


def test_ci_runs_exactly_the_readme_install_and_demo_command() -> None:
    install = _readme_commands()[0]
    assert f"({install})" in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_readme_install_command_runs_the_demo_profile_without_a_key() -> None:
    install = _readme_commands()[0]
    assert "pip install ." in install and "amplifier run -P demo" in install
    assert (ROOT / "profiles" / "demo.yaml").is_file()


def test_readme_test_command_lints_and_runs_pytest() -> None:
    test_command = _readme_commands()[1]
    assert "ruff check ." in test_command and "pytest" in test_command and ".[dev]" in test_command
