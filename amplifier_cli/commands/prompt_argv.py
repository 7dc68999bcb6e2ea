"""`amplifier "fix the tests"`: a first word that is no command is the chat's first message (as `claude "..."`).

Decided here, before click reads the command line (typer-free, so it is cheap):
- a word that IS a command name stays the command (`amplifier session list`);
- a near-miss of a command name (`sesion`, `tools`: one plain word close to a command) stays click's usual
  "No such command ... Did you mean" error, so a typo never costs a model call;
- `help` is `--help`;
- anything else (a word with a space, or a word that resembles no command) starts the prompt, and every
  further word that is not an option joins it (`amplifier fix the tests` sends "fix the tests").
Options of the chat may stand before or after the prompt (`amplifier -P demo "hi"`, `amplifier "hi" -m X`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

# the root's options that take a value (main.root): their value is never a prompt word
ROOT_VALUE_OPTIONS = frozenset({"--profile", "-P", "--provider", "--model", "-m", "--resume", "-r", "--approval",
                                "--sandbox"})
NEAR_MISS_CUTOFF = 0.8  # `sesion` -> session (0.92), `tools` -> tool (0.89); `model` vs module (0.73) is a prompt
_PLAIN_WORD = re.compile(r"[a-z][a-z0-9-]*\Z")
# upstream Amplifier's commands that have no equivalent here (README: "Coming from upstream Amplifier"): an
# upstream user who types one gets the unknown-command error, never a model call with it as the message
UPSTREAM_ONLY_COMMANDS = frozenset({"collection", "logs"})


def is_near_miss(word: str, command_names: Iterable[str]) -> bool:
    """A plain lower-case word close to a command name: a typo, not a message."""
    return bool(_PLAIN_WORD.match(word)) and bool(
        difflib.get_close_matches(word, list(command_names), n=1, cutoff=NEAR_MISS_CUTOFF))


def split_prompt(arguments: list[str], command_names: Iterable[str]) -> tuple[list[str], str | None]:
    """(the arguments without the prompt words, the prompt) or (the arguments, None) when a command is named."""
    names = set(command_names) | UPSTREAM_ONLY_COMMANDS
    remaining: list[str] = []
    words: list[str] = []
    position = 0
    while position < len(arguments):
        token = arguments[position]
        position += 1
        if token == "--":
            return arguments, None  # `--` belongs to a command's own arguments
        if token.startswith("-"):
            remaining.append(token)
            if token in ROOT_VALUE_OPTIONS and position < len(arguments):
                remaining.append(arguments[position])
                position += 1
            continue
        if not words and token == "help":  # `amplifier help` asks for the help, not the model
            return [*remaining, "--help", *arguments[position:]], None
        if not words and (token in names or is_near_miss(token, names)):
            return arguments, None
        words.append(token)
    if not words:
        return arguments, None
    return remaining, " ".join(words)
