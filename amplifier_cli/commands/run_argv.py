"""`amplifier run` read without typer, for the plain forms people and scripts type.

Importing typer and building its commands costs about 30 ms of CPU before anything else can start, and on the
way to the first model request that time is spent on top of the provider SDK's import (one interpreter lock,
so a background import cannot hide it). So `amplifier_cli/__main__.py` first tries this parser: it knows
`run`'s options (`RUN_OPTIONS`, kept equal to the Typer declaration in `run.py` by a test) and accepts only
forms whose meaning is certain: `--option value`, `--option=value`, `-X value`, and at most one prompt that
does not start with `-`. Anything else (help, an unknown or abbreviated option, `--`, a value that looks like
an option, a missing value, a count that is not plain digits, a second prompt) returns None, and typer
parses the command line as before, with its usual messages.
"""

from __future__ import annotations

from typing import Any

# flag -> parameter of `launch.start`; every option of `amplifier run` takes one value
RUN_OPTIONS: dict[str, str] = {
    "--profile": "profile",
    "-P": "profile",
    "--provider": "provider",
    "--model": "model",
    "-m": "model",
    "--resume": "resume",
    "-r": "resume",
    "--session-id": "session_id",
    "--output-format": "output_format",
    "-o": "output_format",
    "--approval": "approval",
    "--max-turns": "max_turns",
    "--sandbox": "sandbox",
}
INTEGER_PARAMETERS = frozenset({"max_turns"})


def parse_run_arguments(arguments: list[str]) -> dict[str, Any] | None:
    """Keyword arguments for `launch.start` from what follows `run`, or None when typer should decide."""
    parsed: dict[str, Any] = {"prompt": None}
    prompt_seen = False
    position = 0
    while position < len(arguments):
        token = arguments[position]
        position += 1
        if not token.startswith("-"):
            if prompt_seen:
                return None
            parsed["prompt"], prompt_seen = token, True
            continue
        flag, equals, inline = token.partition("=") if token.startswith("--") else (token, "", "")
        parameter = RUN_OPTIONS.get(flag)
        if parameter is None:
            return None
        if equals:
            value = inline
        elif position < len(arguments) and not arguments[position].startswith("-"):
            value = arguments[position]
            position += 1
        else:
            return None
        if parameter in INTEGER_PARAMETERS:
            if not (value.isascii() and value.isdigit()):
                return None
            parsed[parameter] = int(value)
        else:
            parsed[parameter] = value
    return parsed
