"""MCP in a prompt, for every front-end: `/mcp__<server>__<prompt> ARGS` becomes the server's prompt text, and
`@server:uri` attaches a resource (mcp_mentions). ARGS are `key=value` pairs, or values in the order the prompt
declares its arguments (the last one open takes the rest of the line).

`amplifier run` calls `prepare_run_prompt` once its session is open; the chat and `amplifier acp` use
`find_prompt` and `fill_prompt_arguments` for their `/mcp__...` commands, and mentions for `@server:uri`."""

from __future__ import annotations

import shlex
from typing import Any

from .mcp_mentions import attach_mcp_resources

PROMPT_COMMAND_PREFIX = "mcp__"


class PromptArgumentsProblem(ValueError):
    """The arguments do not fit the prompt; the message says how to call it."""


def fill_prompt_arguments(command: str, prompt: dict[str, Any], argument: str) -> dict[str, str]:
    """The arguments of MCP prompt ``prompt`` (a row of ``mcp.prompts()``) from the text after ``/command``."""
    declared = [a["name"] for a in prompt["arguments"]]
    usage = f"/{command} " + " ".join(f"{d}=…" for d in declared)
    try:
        words = shlex.split(argument)
    except ValueError as error:
        raise PromptArgumentsProblem(f"could not read the arguments: {error}") from None
    values: dict[str, str] = {}
    positional: list[str] = []
    for word in words:
        key, found, value = word.partition("=")
        if found and key in declared:
            values[key] = value
        else:
            positional.append(word)
    open_names = [d for d in declared if d not in values]
    if len(open_names) == 1 and positional:
        positional = [" ".join(positional)]  # one argument left: the rest of the line is its value
    if len(positional) > len(open_names):
        raise PromptArgumentsProblem(f"too many values for /{command}: {usage.rstrip()}")
    values.update(zip(open_names, positional, strict=False))
    missing = [a["name"] for a in prompt["arguments"] if a["required"] and a["name"] not in values]
    if missing:
        raise PromptArgumentsProblem(f"/{command} needs {', '.join(missing)}: {usage.rstrip()}")
    return values


def find_prompt(prompts: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    """The prompt (a row of ``mcp.prompts()``) that `/name` stands for: with or without the slash, any case."""
    wanted = name.lstrip("/").lower()
    return next((prompt for prompt in prompts if prompt["command"].lower() == wanted), None)


def is_prompt_command(name: str) -> bool:
    return name.lower().startswith(PROMPT_COMMAND_PREFIX)


async def prepare_run_prompt(live: Any, prompt: str,
                             images: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The prompt `amplifier run` sends: an MCP prompt command expanded, then `@server:uri` resources attached.
    A command or mention that cannot be served is a usage error (exit 2); nothing is sent."""
    from ..config.slash_commands import split_command_line
    from ..errors import UsageError

    parts = split_command_line(prompt) if prompt.startswith("/") else None
    if parts is not None and is_prompt_command(parts[0]):
        name, argument = parts
        offered = live.mcp_prompts()
        found = find_prompt(offered, name)
        if found is None:
            names = ", ".join("/" + p["command"] for p in offered) or "none in this session"
            raise UsageError.single(f"/{name} is not an MCP prompt of this session",
                                    fix=f"MCP prompts here: {names} (see /mcp in the chat)")
        try:
            values = fill_prompt_arguments(name, found, argument)
            prompt = await live.mcp_prompt_text(found["server"], found["name"], values)
        except PromptArgumentsProblem as problem:
            raise UsageError.single(str(problem), fix="give the prompt's arguments as NAME=VALUE") from None
        except Exception as error:  # the server answered with an error, or is gone
            raise UsageError.single(f"MCP server '{found['server']}' could not give prompt {found['name']}: "
                                    f"{getattr(error, 'message', None) or error}",
                                    fix="check the arguments, and the server with `amplifier mcp test "
                                        f"{found['server']}`") from None
    resources = await attach_mcp_resources(prompt, live.coordinator)
    if resources.problems:
        raise UsageError("the prompt's MCP resources could not be attached",
                         [_problem(text) for text in resources.problems])
    return resources.prompt(prompt), [*images, *resources.images]


def _problem(text: str) -> Any:
    from ..errors import Problem

    return Problem(text, fix="mention a resource of a connected server as @SERVER:URI (`amplifier mcp test SERVER`)")
