"""`amplifier "PROMPT"`: which first words are a prompt and which stay a command (commands/prompt_argv.py)."""

from __future__ import annotations

import pytest

from amplifier_cli.commands.prompt_argv import split_prompt
from amplifier_cli.main import app

COMMANDS = ("session", "module", "run", "tool", "init", "continue", "profile")


@pytest.mark.parametrize("arguments", [["session", "list"], ["run", "hi"], ["sesion"], ["tools"], ["--help"], [],
                                       ["collection", "list"], ["logs"]])  # upstream-only: unknown, not a prompt
def test_commands_near_misses_and_options_alone_are_left_to_click(arguments: list[str]) -> None:
    assert split_prompt(arguments, COMMANDS) == (arguments, None)


@pytest.mark.parametrize(("arguments", "remaining", "prompt"), [
    (["hi"], [], "hi"),
    (["fix the tests"], [], "fix the tests"),
    (["fix", "the", "tests"], [], "fix the tests"),
    (["-P", "demo", "hi there"], ["-P", "demo"], "hi there"),
    (["hi", "--model", "claude-x"], ["--model", "claude-x"], "hi"),
    (["--profile=demo", "session please"], ["--profile=demo"], "session please"),  # a space: never a command
    (["model"], [], "model"),  # not close enough to `module` to be a typo
])
def test_words_that_are_no_command_are_the_prompt(arguments: list[str], remaining: list[str], prompt: str) -> None:
    assert split_prompt(arguments, COMMANDS) == (remaining, prompt)


def test_help_as_a_word_is_the_help_option() -> None:
    assert split_prompt(["help"], COMMANDS) == (["--help"], None)
    assert split_prompt(["-v", "help"], COMMANDS) == (["-v", "--help"], None)


def test_a_prompt_after_a_dash_dash_is_left_to_click() -> None:
    assert split_prompt(["--", "hi"], COMMANDS) == (["--", "hi"], None)


def test_an_option_value_is_never_taken_for_the_prompt() -> None:
    assert split_prompt(["-m", "session"], COMMANDS) == (["-m", "session"], None)


def test_a_prompt_outside_a_terminal_is_answered_once_like_run(cli, project_dir) -> None:
    result = cli("-P", "demo", "hello there")  # CliRunner: no terminal, so `amplifier run "hello there"`
    assert result.exit_code == 0, result.output
    assert "I wrote amplifier-demo.txt" in result.stdout and (project_dir / "amplifier-demo.txt").exists()


def test_every_command_name_of_the_app_stays_a_command() -> None:
    import typer.main

    group = typer.main.get_command(app)
    names = list(group.commands)  # type: ignore[attr-defined]
    assert "session" in names
    for name in names:
        assert split_prompt([name], names) == ([name], None)
