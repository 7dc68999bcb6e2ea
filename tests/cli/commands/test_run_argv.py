"""`amplifier run` and `continue` without typer: the plain forms mean exactly what typer makes of them,
everything else is left to typer, and the typer-free start ends the way the Typer app does."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from amplifier_cli.commands import launch
from amplifier_cli.commands.run_argv import (
    COMMAND_FLAGS,
    COMMAND_OPTIONS,
    INTEGER_PARAMETERS,
    RUN_OPTIONS,
    parse_command_line,
)


def _typer_command(name: str) -> Any:
    import typer.main

    from amplifier_cli.main import app

    return typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", sorted(COMMAND_OPTIONS))
def test_the_option_tables_are_the_typer_declarations(command: str) -> None:
    declared: dict[str, str] = {}
    declared_flags: dict[str, str] = {}
    for param in _typer_command(command).params:
        if param.param_type_name == "option":
            if param.is_flag:
                assert not param.secondary_opts, f"{param.name}: a flag without a --no- form"
                declared_flags.update({flag: param.name for flag in param.opts})
                continue
            assert param.nargs == 1, f"{param.name} must take exactly one value"
            for flag in (*param.opts, *param.secondary_opts):
                declared[flag] = param.name
    assert declared == COMMAND_OPTIONS[command]
    assert declared_flags == COMMAND_FLAGS[command]
    start_parameters = set(inspect.signature(launch.start).parameters)
    assert set(COMMAND_OPTIONS[command].values()) | set(COMMAND_FLAGS[command].values()) | {"prompt"} \
        <= start_parameters


def _start_arguments_through_typer(monkeypatch: pytest.MonkeyPatch, arguments: list[str]) -> dict[str, Any]:
    """What the Typer command passes to `start` for ``arguments`` (`run ...`), start's defaults filled in."""
    from amplifier_cli.commands import run as run_command
    from amplifier_cli.main import app

    seen: dict[str, Any] = {}

    def capture(prompt: str | None, **options: Any) -> int:
        seen.update(prompt=prompt, **options)
        return 0

    monkeypatch.setattr(run_command, "start", capture)
    with pytest.raises(SystemExit) as ended:
        app(arguments, prog_name="amplifier")
    assert ended.value.code == 0
    return _with_defaults(seen)


def _with_defaults(options: dict[str, Any]) -> dict[str, Any]:
    parameters = inspect.signature(launch.start).parameters
    filled = {name: p.default for name, p in parameters.items() if p.default is not inspect.Parameter.empty}
    filled.update(options)
    return filled


PLAIN_FORMS = [
    ["hi"],
    [],
    ["-P", "minimal", "hi"],
    ["hi", "-P", "minimal"],
    ["--profile=minimal", "--model", "claude-x", "two words"],
    ["-m", "m1", "-m", "m2", "hi"],  # the last one wins, as in click
    ["--provider", "openai", "-o", "json", "--approval", "deny", "--sandbox", "read-only", "hi"],
    ["-r", "abc123", "--max-turns", "7", "go"],
    ["--session-id", "00000000-0000-4000-8000-000000000000", "--max-turns=12", "x"],
    ["--output-format", "stream-json", "-P", "", ""],
    ["--model=", "hi"],
    ["héllo wörld ✓"],
    ["--record", "cassettes/one", "hi"],
    ["--replay=cassettes/one", "--replay-tools", "hi", "--replay-tools"],
    ["--max-total-tokens", "5000", "--max-cost=1.25", "go"],
    ["-r", "abc", "--fork", "go"],
    ["--image", "pic.png", "--image=shots/b.jpg", "what differs?"],  # repeatable, kept in order
]


CONTINUE_FORMS = [
    ["more"],
    [],
    ["-P", "minimal", "--model=m", "-o", "json", "and more"],
    ["--approval", "allow", "--sandbox", "off", "--provider", "openai"],
    ["--max-turns", "3", "--max-total-tokens=900", "--max-cost", "0.5", "more"],
]


@pytest.mark.parametrize("arguments", [["run", *form] for form in PLAIN_FORMS]
                         + [["continue", *form] for form in CONTINUE_FORMS])
def test_plain_forms_mean_what_typer_makes_of_them(monkeypatch: pytest.MonkeyPatch, arguments: list[str]) -> None:
    fast = parse_command_line(arguments)
    assert fast is not None, f"{arguments} should not need typer"
    assert _with_defaults(fast) == _start_arguments_through_typer(monkeypatch, arguments)


@pytest.mark.parametrize(
    "arguments",
    [
        ["--help"],
        ["-h"],
        ["--", "-starts with a dash"],
        ["-"],
        ["one", "two"],
        ["--profil", "x", "hi"],  # not a prefix match
        ["-Pminimal", "hi"],
        ["-P"],
        ["-P", "--model", "x"],  # a value that looks like an option
        ["--max-turns", "x", "hi"],
        ["--max-turns", "+3", "hi"],
        ["--max-turns", "٣", "hi"],
        ["--max-turns=", "hi"],
        ["--verbose", "hi"],
        ["--unknown=1", "hi"],
        ["--replay-tools=yes", "hi"],
    ],
)
def test_anything_else_is_left_to_typer(arguments: list[str]) -> None:
    assert parse_command_line(["run", *arguments]) is None


@pytest.mark.parametrize("arguments", [["continue", "--resume", "x"], ["continue", "--session-id", "x", "hi"],
                                       ["continue", "--replay-tools", "hi"],
                                       ["session", "list"], ["profile"], [], ["-P", "demo", "run", "hi"]])
def test_options_of_other_commands_and_other_commands_are_left_to_typer(arguments: list[str]) -> None:
    assert parse_command_line(arguments) is None


def test_integer_parameters_are_options_of_run() -> None:
    assert INTEGER_PARAMETERS <= set(RUN_OPTIONS.values())


PROBE = """
import sys
sys.argv = ["amplifier", *sys.argv[1:]]
from amplifier_cli.__main__ import main
try:
    main()
except SystemExit as exit:
    code = exit.code
else:
    code = 0
print("MODULES:" + ",".join(sorted(sys.modules)), file=sys.stderr)
sys.exit(code)
"""


def _probe(arguments: list[str], cwd: Path, home: Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    env = {**os.environ, "AMPLIFIER_HOME": str(home)}
    result = subprocess.run([sys.executable, "-c", PROBE, *arguments], capture_output=True, text=True, cwd=cwd,
                            env=env, stdin=subprocess.DEVNULL, check=False)
    stderr, _, modules = result.stderr.rpartition("MODULES:")
    result.stderr = stderr
    return result, set(modules.strip().split(","))


def test_a_plain_run_answers_without_importing_typer(tmp_path: Path) -> None:
    result, modules = _probe(["run", "-P", "demo", "hello"], tmp_path, tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert "scripted demo model" in result.stdout
    assert not {name for name in modules if name.split(".")[0] in ("typer", "click")}
    assert "amplifier_cli.main" not in modules


def test_failures_end_alike_with_and_without_typer(tmp_path: Path) -> None:
    """The same mistake, once in a plain form and once in a form only typer parses (`--` before the prompt)."""
    home = tmp_path / "home"
    for fast, typed in (
        (["run", "-P", "nonexistent", "hi"], ["run", "-P", "nonexistent", "--", "hi"]),
        (["run", "-o", "yaml", "hi"], ["run", "-o", "yaml", "--", "hi"]),
        (["run", "--max-turns", "0", "hi"], ["run", "--max-turns", "0", "--", "hi"]),
        (["continue", "hi"], ["continue", "--", "hi"]),  # no session to continue in a new project
    ):
        without, without_modules = _probe(fast, tmp_path, home)
        with_typer, typer_modules = _probe(typed, tmp_path, home)
        assert "typer" not in without_modules and "typer" in typer_modules
        assert without.returncode == with_typer.returncode == 2
        assert without.stderr == with_typer.stderr
        assert without.stderr.startswith("Error: ") and without.stderr.count("\n") == 1
        assert "Traceback" not in without.stderr
