"""`amplifier run` and `amplifier continue` read without typer, for the plain forms people and scripts type.

Importing typer and building its commands costs about 30 ms of CPU before anything else can start, and on the
way to the first model request that time is spent on top of the provider SDK's import (one interpreter lock,
so a background import cannot hide it). So `amplifier_cli/__main__.py` first tries this parser: it knows the two
commands' options (`COMMAND_OPTIONS`, `COMMAND_FLAGS`, kept equal to the Typer declarations in `run.py` by a
test) and accepts only forms whose meaning is certain: `--option value`, `--option=value`, `-X value`, a flag, and at
most one prompt that does not start with `-`. Anything else (help, an unknown or abbreviated option, `--`, a
value that looks like an option, a missing value, a count that is not plain digits, a second prompt) returns
None, and typer parses the command line as before, with its usual messages.
"""

from __future__ import annotations

from typing import Any

# flag -> parameter of `launch.start`; every option here takes one value (flags are in COMMAND_FLAGS)
RUN_OPTIONS: dict[str, str] = {
    "--profile": "profile",
    "-P": "profile",
    "--bundle": "profile",
    "-B": "profile",
    "--provider": "provider",
    "-p": "provider",
    "--model": "model",
    "-m": "model",
    "--resume": "resume",
    "-r": "resume",
    "--session-id": "session_id",
    "--output-format": "output_format",
    "-o": "output_format",
    "--approval": "approval",
    "--max-turns": "max_turns",
    "--max-total-tokens": "max_total_tokens",
    "--max-cost": "max_cost",
    "--max-tokens": "max_tokens",
    "--sandbox": "sandbox",
    "--mode": "mode",
    "--record": "record",
    "--replay": "replay",
    "--image": "images",
    "--worktree": "worktree",  # an optional value: always left to typer (TYPER_ONLY)
}
# options whose meaning depends on what follows them (an optional value): a line with one goes to typer
TYPER_ONLY = frozenset({"--worktree"})
# flags (no value) -> parameter of `launch.start`, set to True
RUN_FLAGS: dict[str, str] = {"--fork": "fork"}
CONTINUE_OPTIONS: dict[str, str] = {
    flag: parameter for flag, parameter in RUN_OPTIONS.items()
    if parameter not in ("resume", "session_id", "record", "replay", "max_tokens", "images", "worktree")
}
COMMAND_OPTIONS: dict[str, dict[str, str]] = {"run": RUN_OPTIONS, "continue": CONTINUE_OPTIONS}
# flags (no value; present = True)
COMMAND_FLAGS: dict[str, dict[str, str]] = {"run": {**RUN_FLAGS, "--replay-tools": "replay_tools"},
                                            "continue": RUN_FLAGS}
# what the command itself adds to `start`'s arguments
COMMAND_ARGUMENTS: dict[str, dict[str, Any]] = {"run": {}, "continue": {"continue_latest": True}}
INTEGER_PARAMETERS = frozenset({"max_turns", "max_total_tokens", "max_tokens"})
# options that may be given several times; `start` gets the list of their values in order
REPEATED_PARAMETERS = frozenset({"images"})


ACP_OPTIONS: dict[str, str] = {flag: RUN_OPTIONS[flag] for flag in (
    "--profile", "-P", "--bundle", "-B", "--provider", "-p", "--model", "-m", "--sandbox", "--approval", "--mode")}


def with_worktree_values(arguments: list[str]) -> list[str]:
    """`--worktree [NAME]` spelled the one way click reads: `--worktree=NAME`, or `--worktree=` for a generated name.
    The word after a bare `--worktree` is its NAME only when it could be one (no space, no leading dash), so
    `--worktree "fix the bug"` keeps its prompt; `--worktree=NAME` or the prompt first is never ambiguous."""
    import re

    rewritten: list[str] = []
    position = 0
    while position < len(arguments):
        token = arguments[position]
        position += 1
        if token == "--":
            return rewritten + arguments[position - 1:]
        if token != "--worktree":
            rewritten.append(token)
            continue
        following = arguments[position] if position < len(arguments) else None
        if following is not None and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", following):
            rewritten.append(f"--worktree={following}")
            position += 1
        else:
            rewritten.append("--worktree=")
    return rewritten


def parse_acp_line(arguments: list[str]) -> dict[str, Any] | None:
    """Keyword arguments for `launch.start_acp` from `acp ...` (which takes no prompt), or None for typer."""
    if not arguments or arguments[0] != "acp":
        return None
    parsed = _parse_options(arguments[1:], ACP_OPTIONS, {})
    if parsed is None or parsed.pop("prompt") is not None:
        return None
    return parsed


def parse_command_line(arguments: list[str]) -> dict[str, Any] | None:
    """Keyword arguments for `launch.start` from `run ...` or `continue ...`, or None when typer should decide."""
    command = arguments[0] if arguments else None
    if command not in COMMAND_OPTIONS:
        return None
    parsed = _parse_options(arguments[1:], COMMAND_OPTIONS[command], COMMAND_FLAGS[command])
    return None if parsed is None else {**parsed, **COMMAND_ARGUMENTS[command]}


def _parse_options(arguments: list[str], options: dict[str, str], flags: dict[str, str]) -> dict[str, Any] | None:
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
        if token in flags:
            parsed[flags[token]] = True
            continue
        flag, equals, inline = token.partition("=") if token.startswith("--") else (token, "", "")
        parameter = options.get(flag)
        if parameter is None or flag in TYPER_ONLY:
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
        elif parameter in REPEATED_PARAMETERS:
            parsed.setdefault(parameter, []).append(value)
        else:
            parsed[parameter] = value
    return parsed
