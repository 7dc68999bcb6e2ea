"""`/mcp__<server>__<prompt> ARGS`: an MCP server's prompt as a slash command, the same in every front-end. ARGS
are `key=value` pairs or values in the order the prompt declares its arguments; when one argument is left, the
rest of the line is its value."""

from __future__ import annotations

import shlex
from typing import Any


class PromptCallProblem(ValueError):
    """The command line does not name a prompt of this session, or its arguments do not fit; the message says
    which, with the usage."""


class UnknownPrompt(PromptCallProblem):
    """No prompt of this session has that command name."""


def find_prompt(prompts: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The prompt `/name` stands for (``name`` with or without its slash, any case)."""
    wanted = name.lstrip("/").lower()
    found = next((p for p in prompts if p["command"].lower() == wanted), None)
    if found is None:
        raise UnknownPrompt(f"Unknown command /{wanted}. /mcp lists the MCP prompts of this session.")
    return found


def prompt_arguments(prompt: dict[str, Any], argument: str) -> dict[str, str]:
    """The values the command line gives the prompt's declared arguments."""
    name = "/" + prompt["command"]
    declared = [a["name"] for a in prompt["arguments"]]
    try:
        words = shlex.split(argument)
    except ValueError as error:
        raise PromptCallProblem(f"Could not read the arguments: {error}") from None
    values: dict[str, str] = {}
    positional: list[str] = []
    for word in words:
        key, found, value = word.partition("=")
        if found and key in declared:
            values[key] = value
        else:
            positional.append(word)
    open_names = [d for d in declared if d not in values]
    usage = f"{name} " + " ".join(f"{d}=…" for d in declared)
    if len(open_names) == 1 and positional:
        positional = [" ".join(positional)]  # one argument left: the rest of the line is its value
    if len(positional) > len(open_names):
        raise PromptCallProblem(f"Too many values for {name}: {usage}")
    values.update(zip(open_names, positional, strict=False))
    missing = [a["name"] for a in prompt["arguments"] if a["required"] and a["name"] not in values]
    if missing:
        raise PromptCallProblem(f"{name} needs {', '.join(missing)}: {usage}")
    return values
