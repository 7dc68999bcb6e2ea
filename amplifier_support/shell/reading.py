"""The whole reading of a line: parse it, peel the wrappers of every command, and read the script strings they
run (``sh -c '...'``, and for deny lists also ``eval``, ``trap``, ``alias``, a here-string fed to a shell) the
same way, down to ``MAX_SCRIPT_DEPTH`` levels.

Two readings, for two kinds of policy:
- ``read_line(line, strict=True)`` (approval): only literal words count; every part that cannot be judged is
  listed in ``unjudged`` and the line is "plain" only when there is none.
- ``read_line(line, strict=False)`` (deny lists): every command the line could run, with the words a static
  reading expects (decoded strings, braces and ``$IFS`` expanded), seen through every known wrapper.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .parse import Command, ParsedLine, Redirect, Unjudged, parse_line
from .read_only import RUNS_CODE
from .wrappers import SHELLS, Unwrapped, basename, unwrap

__all__ = ["MAX_SCRIPT_DEPTH", "LineReading", "Step", "read_line"]

MAX_SCRIPT_DEPTH = 4


@dataclass
class Step:
    """One command as it runs: the parsed command it comes from, its words, and what its wrappers run."""

    command: Command
    words: list[str]
    unwrapped: Unwrapped
    level: int = 0  # 0: in the line itself; n: inside n script strings
    exec_of: bool = False  # a command `find -exec` runs

    @property
    def core(self) -> list[str]:
        """The words of the command that really runs (wrappers peeled)."""
        return self.unwrapped.command if not self.exec_of else self.words

    @property
    def text(self) -> str:
        return " ".join(self.command.text.split()) if not self.exec_of else " ".join(self.words)


@dataclass
class LineReading:
    line: str
    steps: list[Step] = field(default_factory=list)
    unjudged: list[Unjudged] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    parsed: list[ParsedLine] = field(default_factory=list)  # the line's parse, then each script's
    parse_error: bool = False
    too_deep: bool = False

    @property
    def plain(self) -> bool:
        return not self.unjudged


def _code_strings(words: list[str]) -> list[str]:
    """Strings a builtin runs as code: ``eval ARGS``, ``trap CMD SIG``, ``alias n=CMD``, ``mapfile -C CB``,
    ``hash -p PROG NAME`` (NAME then runs PROG)."""
    if not words:
        return []
    name, args = basename(words[0]), words[1:]
    if name == "eval":
        return [" ".join(args)] if args else []
    if name == "trap":
        if args[:1] == ["--"]:
            args = args[1:]
        return [args[0]] if len(args) > 1 and not args[0].startswith("-") else []
    if name == "alias":
        return [arg.partition("=")[2] for arg in args if "=" in arg and not arg.startswith("-")]
    if name in ("mapfile", "readarray"):
        return [args[index + 1] for index, arg in enumerate(args[:-1]) if arg == "-C"]
    if name == "hash" and args[:1] == ["-p"] and len(args) > 1:
        return [args[1]]
    if name in ("complete", "compgen"):
        return [args[index + 1] for index, arg in enumerate(args[:-1]) if arg == "-C"]
    return []


def read_line(line: str, strict: bool = True) -> LineReading:
    reading = LineReading(line)
    _read(line, strict, 0, reading)
    return reading


def _read(line: str, strict: bool, level: int, reading: LineReading) -> None:
    if level > MAX_SCRIPT_DEPTH:
        reading.too_deep = True
        reading.unjudged.append(Unjudged("", f"scripts nested more than {MAX_SCRIPT_DEPTH} levels deep"))
        return
    parsed = parse_line(line)
    reading.parsed.append(parsed)
    reading.unjudged.extend(parsed.unjudged)
    reading.redirects.extend(parsed.redirects)
    reading.parse_error = reading.parse_error or parsed.parse_error
    reading.too_deep = reading.too_deep or parsed.too_deep
    for command in parsed.commands:
        if strict:
            words = command.argv if command.argv is not None else command.readings
        else:
            words = command.readings
        if not words:
            continue
        unwrapped = unwrap(words, approval=strict)
        step = Step(command, words, unwrapped, level)
        reading.steps.append(step)
        judged_here = strict and not command.nested and command.argv is not None
        if strict and not command.nested and unwrapped.problem:
            reading.unjudged.append(Unjudged(_short(command.text), unwrapped.problem))
        core = unwrapped.command
        if core and basename(core[0]) in RUNS_CODE and judged_here:
            reading.unjudged.append(Unjudged(_short(command.text), f"`{basename(core[0])}` runs or changes shell "
                                             "code"))
        for exec_words in unwrapped.execs:
            inner = unwrap(exec_words, approval=strict)
            reading.steps.append(Step(command, exec_words, inner, level, exec_of=True))
            if judged_here and inner.problem:
                reading.unjudged.append(Unjudged(" ".join(exec_words), inner.problem))
            for script in inner.scripts:
                _read(script, strict, level + 1, reading)
        if strict and not judged_here:
            continue  # what an unjudged command runs is not read: the line is asked for anyway
        scripts = list(unwrapped.scripts)
        if not strict:
            scripts += _code_strings(core)
            scripts += _fed_scripts(command, core)
        for script in scripts:
            _read(script, strict, level + 1, reading)


def _fed_scripts(command: Command, core: list[str]) -> list[str]:
    """A here-string or heredoc fed to a shell or ``source`` is the script it runs (``bash <<< 'sudo ls'``)."""
    if not core or (basename(core[0]) not in SHELLS and core[0] not in (".", "source")):
        return []
    return [redirect.target.readings[0] if redirect.target.readings else redirect.target.source
            for redirect in command.redirects
            if redirect.operator in ("<<<", "<<", "<<-") and redirect.target is not None]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:79] + "…"
