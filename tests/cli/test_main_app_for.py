"""`amplifier_cli.main.app_for`: a command line that names a command gets an app holding only that command's file
(Typer converts every registered command on each call), and answers exactly as the whole app does."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from amplifier_cli.main import app, app_for


@pytest.mark.parametrize("line", [
    "session list", "session list --json", "-v session list", "--profile demo session list", "session lst",
    "session", "profile show no-such-profile", "module list --type hook", "trust --help", "mcp", "routing list",
    "allowed-dirs list", "init --help",
])
def test_a_named_command_answers_as_the_whole_app_does(line: str, project_dir) -> None:
    arguments = line.split()
    runner = CliRunner()
    alone, whole = runner.invoke(app_for(arguments), arguments), runner.invoke(app, arguments)
    assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)


def test_only_the_named_commands_file_is_built_and_help_or_the_chat_get_everything() -> None:
    groups = [group.name for group in app_for(["--verbose", "session", "list"]).registered_groups]
    assert groups == ["session"] and app_for(["run", "hi"]).registered_commands[0].name == "run"
    for line in (["--help"], ["-h", "session"], [], ["--model", "x"], ["a prompt"], ["--unknown", "session"]):
        assert app_for(line) is app
