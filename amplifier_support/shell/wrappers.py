"""Commands that run another command: ``env``, ``nice``, ``timeout``, ``xargs``, ``find -exec``, a shell with
``-c SCRIPT`` ... ``unwrap`` peels them off so the command that really runs is judged like any other.

Two strengths: ``approval=True`` peels only the wrappers whose options are all understood and that add
nothing of their own (what approval may look through); a deny list passes ``approval=False`` to also see
through ``sudo``, ``doas``, ``setsid``, ``flock`` ... (a denied program stays denied behind any of them).
Anything not understood (an unknown option, an rcfile, assignments that change the environment, too many
layers) is reported as ``problem``: a policy must not vouch for such a line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

__all__ = ["MAX_WRAPPERS", "SHELLS", "Unwrapped", "basename", "is_assignment", "shell_script", "unwrap"]

MAX_WRAPPERS = 8
SHELLS = frozenset({"sh", "bash", "rbash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox", "yash",
                    "posh", "tcsh", "csh"})


@dataclass(frozen=True)
class _Spec:
    """A wrapper: options that take a value, other known options, and fixed operands before the command."""

    takes_value: frozenset[str] = frozenset()
    flags: frozenset[str] | None = frozenset()  # None: any option is accepted (deny-list only wrappers)
    positionals: int = 0
    approval: bool = True  # approval may look through it


_APPROVAL_WRAPPERS: dict[str, _Spec] = {
    "env": _Spec(frozenset({"-u", "--unset", "-C", "--chdir"}), frozenset({"-i", "-", "--ignore-environment",
                                                                          "-0", "--null"})),
    "nice": _Spec(frozenset({"-n", "--adjustment"}), frozenset()),
    "timeout": _Spec(frozenset({"-s", "--signal", "-k", "--kill-after"}),
                     frozenset({"--preserve-status", "--foreground", "-v", "--verbose"}), positionals=1),
    "nohup": _Spec(),
    "stdbuf": _Spec(frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), frozenset()),
    "time": _Spec(frozenset({"-f", "--format", "-o", "--output"}), frozenset({"-p", "-v", "--portability"})),
    "command": _Spec(frozenset(), frozenset({"-p"})),
    "xargs": _Spec(
        frozenset({"-I", "-i", "-n", "-P", "-L", "-l", "-d", "-s", "-E", "-e", "-a", "--arg-file", "--delimiter",
                   "--max-args", "--max-procs", "--max-lines", "--replace", "--max-chars", "--eof"}),
        frozenset({"-0", "--null", "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit"})),
}
_DENY_ONLY_WRAPPERS: dict[str, _Spec] = {
    name: _Spec(frozenset(takes), None, positionals, approval=False) for name, takes, positionals in (
        ("sudo", {"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group"}, 0),
        ("doas", {"-u", "-C"}, 0),
        ("run0", {"-u", "--user", "-g", "--group"}, 0),
        ("setsid", set(), 0),
        ("ionice", {"-c", "-n", "-p", "-t"}, 0),
        ("chroot", {"--userspec", "--groups"}, 1),
        ("flock", {"-w", "-E", "--timeout", "--conflict-exit-code"}, 1),
        ("unshare", {"-S", "-G", "-R", "-w", "--setuid", "--setgid", "--root", "--wd", "--propagation",
                     "--map-user", "--map-group", "--map-users", "--map-groups"}, 0),
        ("strace", {"-e", "-o", "-p", "-s", "-u"}, 0),
        ("ltrace", {"-e", "-o", "-p", "-s", "-u"}, 0),
        ("watch", {"-n", "--interval", "-d"}, 0),
        ("exec", {"-a"}, 0),
        ("builtin", set(), 0),
        ("coproc", set(), 0),
        ("taskset", set(), 1),
        ("chrt", set(), 1),
        ("systemd-run", {"-u", "--unit", "-p", "--property"}, 0),
        ("firejail", set(), 0),
        ("caffeinate", set(), 0),
        ("catchsegv", set(), 0),
        ("faketime", set(), 1),
        ("proxychains", {"-f"}, 0),
        ("torsocks", set(), 0),
    )
}
# Options of a shell that take a value, and the ones that read or run code from elsewhere.
_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_SHELL_CODE_OPTIONS = frozenset({"--rcfile", "--init-file", "-i", "-l", "--login", "--debugger"})
_SHELL_LETTERS = frozenset("abefhkmnptuvxBCEHPT")  # set options that change no code source
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def basename(word: str) -> str:
    return os.path.basename(word) if "/" in word else word


def is_assignment(word: str) -> bool:
    """``NAME=value`` (a variable assignment, not a command word)."""
    name, equals, _ = word.partition("=")
    return bool(equals) and bool(name) and (name[0].isalpha() or name[0] == "_") and \
        all(char.isalnum() or char == "_" for char in name)


@dataclass
class Unwrapped:
    """What a command line of words really runs."""

    command: list[str]  # the innermost command's words ([] when a script or nothing runs)
    wrappers: list[str] = field(default_factory=list)  # names peeled off, outermost first
    scripts: list[str] = field(default_factory=list)  # script strings handed to a shell (sh -c, flock -c ...)
    execs: list[list[str]] = field(default_factory=list)  # commands `find -exec` runs
    problem: str | None = None  # why the wrapping cannot be judged
    input_args: bool = False  # xargs: more arguments come from input


def shell_script(words: list[str]) -> tuple[str | None, str | None]:
    """``(script, problem)`` for a shell command: the ``-c`` script string (options may come before or after
    ``-c``, as bash reads them: ``bash -c -e 'x'``, ``bash -o pipefail -c 'x'``, ``bash -c -- 'x'``). No
    ``-c``: ``(None, None)``, the shell runs a file or its input."""
    index, has_c, problem = 1, False, None
    if basename(words[0]) == "busybox":
        index = 2
    while index < len(words):
        word = words[index]
        if word == "--":
            index += 1
            break
        if word in _SHELL_VALUE_OPTIONS:
            if word in _SHELL_CODE_OPTIONS:
                problem = f"`{word}` makes the shell read code from a file"
            index += 2
            continue
        if word.startswith("--"):
            if word in _SHELL_CODE_OPTIONS:
                problem = f"`{word}` makes the shell read startup files"
            elif word not in ("--norc", "--noprofile", "--posix", "--noediting", "--restricted"):
                problem = f"the shell option `{word}` is not understood"
            index += 1
            continue
        if len(word) > 1 and word[0] in "-+":
            letters = word[1:]
            if "c" in letters:
                has_c = True
            for letter in letters.replace("c", ""):
                if letter in "il":
                    problem = f"`{word[0]}{letter}` makes the shell read startup files"
                elif letter == "s":
                    continue
                elif letter not in _SHELL_LETTERS:
                    problem = f"the shell option `{word[0]}{letter}` is not understood"
            index += 1
            continue
        break
    if not has_c:
        return None, problem
    if index >= len(words):
        return None, problem or "`-c` without a script"
    return words[index], problem


def _flock_or_su_script(name: str, words: list[str]) -> str | None:
    """``flock FILE -c CMD``, ``su -c CMD``, ``script -c CMD``, ``env -S STR``, ``runuser -c``: a string run by a
    shell."""
    for index, word in enumerate(words[1:], start=1):
        following = words[index + 1] if index + 1 < len(words) else ""
        if word in ("-c", "--command", "-S", "--split-string") and (name != "env" or word in ("-S", "--split-string")):
            if name == "env" or word in ("-c", "--command"):
                return following
        if word.startswith(("--command=", "--split-string=")):
            return word.partition("=")[2]
        if name != "env" and word.startswith("-") and not word.startswith("--") and "c" in word[1:] \
                and name in ("su", "script", "runuser"):
            rest = word[word.index("c", 1) + 1:]
            return rest or following
        if name == "env" and word.startswith("-S") and len(word) > 2:
            return word[2:]
    return None


def _peel(name: str, spec: _Spec, words: list[str], approval: bool) -> tuple[list[str], str | None]:
    """The words after wrapper ``name``'s options and operands, or a problem."""
    index = 1
    while index < len(words):
        word = words[index]
        if word == "--":
            index += 1
            break
        if not word.startswith("-") or (word == "-" and name != "env"):
            break
        option, equals, _ = word.partition("=")
        if option in spec.takes_value:
            index += 1 if equals else 2
            continue
        if name in ("nice",) and word[1:].lstrip("-").isdigit():  # nice -5
            index += 1
            continue
        if name == "stdbuf" and word[:2] in ("-i", "-o", "-e") and len(word) > 2:
            index += 1
            continue
        if name == "xargs" and word[:2] in ("-n", "-P", "-L", "-I", "-d", "-s", "-E", "-a") and len(word) > 2:
            index += 1
            continue
        if spec.flags is None or word in spec.flags:
            index += 1
            continue
        return [], f"the option `{word}` of {name} is not understood"
    if name == "env":
        assigned = []
        while index < len(words) and is_assignment(words[index]):
            assigned.append(words[index])
            index += 1
        if assigned and approval:
            return [], "env sets " + ", ".join(item.partition("=")[0] for item in assigned) + \
                " for the command it runs"
    index += spec.positionals
    return words[index:], None


def unwrap(words: list[str], approval: bool = True, depth: int = 0) -> Unwrapped:
    """Peel the wrappers off ``words`` (see the module docstring)."""
    result = Unwrapped(command=list(words))
    current = list(words)
    while current:
        if len(result.wrappers) >= MAX_WRAPPERS or depth > MAX_WRAPPERS:
            result.problem = f"more than {MAX_WRAPPERS} wrappers"
            result.command = []
            return result
        name = basename(current[0])
        if name in SHELLS:
            script, problem = shell_script(current)
            if problem:
                result.problem = problem
            if script is not None:
                result.wrappers.append(name)
                result.scripts.append(script)
                result.command = []
            return result
        if name in ("flock", "su", "script", "runuser") or (name == "env" and _flock_or_su_script(name, current)):
            script = _flock_or_su_script(name, current)
            if script is not None:
                result.wrappers.append(name)
                result.scripts.append(script)
                result.command = []
                if approval:
                    result.problem = f"{name} runs a script string"
                return result
        if name == "find":
            command, execs = _find_parts(current)
            result.execs.extend(execs)
            result.command = command
            return result
        if name == "command" and len(current) > 1 and current[1] in ("-v", "-V"):
            return result
        spec = _APPROVAL_WRAPPERS.get(name) or (None if approval else _DENY_ONLY_WRAPPERS.get(name))
        if spec is None:
            return result
        inner, problem = _peel(name, spec, current, approval)
        if problem:
            result.problem = problem
            result.command = []
            return result
        result.wrappers.append(name)
        if name == "xargs":
            result.input_args = True
            inner = inner or ["echo"]
        if name == "watch" and inner:
            result.scripts.append(" ".join(inner))
            result.command = []
            return result
        current = inner
        result.command = list(current)
    return result


def _find_parts(words: list[str]) -> tuple[list[str], list[list[str]]]:
    """``find`` without its ``-exec CMD ;`` clauses, and those commands (``{}`` left as it is)."""
    command: list[str] = []
    execs: list[list[str]] = []
    index = 0
    while index < len(words):
        if words[index] in _FIND_EXEC:
            end = index + 1
            while end < len(words) and words[end] not in (";", "+"):
                end += 1
            if end > index + 1:
                execs.append(words[index + 1:end])
            index = end + 1
            continue
        command.append(words[index])
        index += 1
    return command, execs
