"""The bash safety policy: judge EVERY simple command of a line (see shell_split), so an allowed prefix cannot
smuggle a denied command through ``;``, ``&&``, pipes, substitutions, subshells or ``bash -c``.

Profiles (each includes the previous): ``permissive`` blocks what destroys the machine (recursive delete of
``/``/``~``/system dirs, mkfs, writing to block devices, fork bombs); ``standard`` adds shutdown/reboot, recursive
chmod/chown of those dirs, ``kill -1`` and download-piped-to-shell; ``strict`` adds privilege escalation
(sudo, su, doas, passwd). ``unrestricted`` has no built-in rules. User patterns apply in every profile.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from amplifier_support.shell_split import (
    ShellCommand,
    dynamic_command_word,
    is_assignment,
    parse_commands,
    strip_wrappers,
)

PROFILES = ("strict", "standard", "permissive", "unrestricted")
_LEVEL = {"unrestricted": 0, "permissive": 1, "standard": 2, "strict": 3}

_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"})
_SYSTEM_DIRS = frozenset({"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/opt", "/proc",
                          "/root", "/sbin", "/srv", "/sys", "/usr", "/var", "/System", "/Users", "/Library",
                          "/Applications", "/private"})
_HARMLESS_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/full",
                               "/dev/random", "/dev/urandom"})
_FORK_BOMB = re.compile(r"(\S+)\s*\(\)\s*\{[^}]*?\1\s*\|\s*&?\s*\1\s*&")
_DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c"})


@dataclass(frozen=True)
class PolicyDecision:
    """``allowed`` plus, when refused, which simple command, which rule, and why."""

    allowed: bool
    reason: str = ""
    command: str = ""
    rule: str = ""


@dataclass(frozen=True)
class _Rule:
    name: str
    level: int
    reason: str
    matches: Callable[[ShellCommand, list[str], list[ShellCommand]], bool]


def _name(words: list[str]) -> str:
    return os.path.basename(words[0]) if words else ""


def _is_dangerous_target(target: str) -> bool:
    normalized = target
    while True:
        stripped = normalized
        for suffix in ("/*", "/.", "/"):
            if stripped.endswith(suffix):
                stripped = stripped[: -len(suffix)]
        if stripped == normalized:
            break
        normalized = stripped
    if normalized in ("", ".*", "~", "$HOME", "${HOME}") or normalized in _SYSTEM_DIRS:
        return True
    if normalized.startswith("~") and "/" not in normalized:  # ~user
        return True
    home = os.path.expanduser("~").rstrip("/")
    return bool(home) and normalized == home


def _operands(words: list[str]) -> list[str]:
    operands: list[str] = []
    after_dashes = False
    for word in words[1:]:
        if word == "--" and not after_dashes:
            after_dashes = True
        elif after_dashes or not word.startswith("-") or word == "-":
            operands.append(word)
    return operands


def _has_flag(words: list[str], short: str, long: str) -> bool:
    for word in words[1:]:
        if word == "--":
            return False
        if word == long or (word.startswith("-") and not word.startswith("--") and
                            any(letter in word[1:] for letter in short)):
            return True
    return False


def _recursive_delete(_: ShellCommand, core: list[str], __: list[ShellCommand]) -> bool:
    if _name(core) != "rm":
        return False
    if "--no-preserve-root" in core:
        return True
    return _has_flag(core, "rR", "--recursive") and any(_is_dangerous_target(t) for t in _operands(core))


def _recursive_permissions(_: ShellCommand, core: list[str], __: list[ShellCommand]) -> bool:
    if _name(core) not in ("chmod", "chown", "chgrp"):
        return False
    return _has_flag(core, "R", "--recursive") and any(_is_dangerous_target(t) for t in _operands(core)[1:])


def _format_disk(_: ShellCommand, core: list[str], __: list[ShellCommand]) -> bool:
    name = _name(core)
    if name.startswith("mkfs") or name in ("mke2fs", "mkswap", "wipefs"):
        return True
    return name in ("fdisk", "sfdisk", "parted", "shred") and any(w.startswith("/dev/") for w in core[1:])


def _is_device(path: str) -> bool:
    if not path.startswith("/dev/") or path in _HARMLESS_DEVICES:
        return False
    return not path.startswith(("/dev/fd/", "/dev/shm/", "/dev/pts/"))


def _write_to_device(command: ShellCommand, core: list[str], _: list[ShellCommand]) -> bool:
    if _name(core) == "dd" and any(w.startswith("of=") and _is_device(w[3:]) for w in core[1:]):
        return True
    words = command.words
    for index, word in enumerate(words[:-1]):
        if ">" in word and not word.startswith("<") and _is_device(words[index + 1]):
            return True
    return _name(core) == "tee" and any(_is_device(w) for w in _operands(core))


def _power(_: ShellCommand, core: list[str], __: list[ShellCommand]) -> bool:
    name = _name(core)
    if name in ("shutdown", "reboot", "halt", "poweroff", "kexec"):
        return True
    if name in ("init", "telinit") and len(core) > 1 and core[1] in ("0", "6"):
        return True
    return name == "systemctl" and any(w in ("poweroff", "reboot", "halt", "kexec") for w in core[1:])


def _kill_everything(_: ShellCommand, core: list[str], __: list[ShellCommand]) -> bool:
    return _name(core) == "kill" and "-1" in core[2:]


def _download_to_shell(command: ShellCommand, core: list[str], pipeline: list[ShellCommand]) -> bool:
    if _name(core) not in _SHELLS:
        return False
    if re.search(r"\b(curl|wget|fetch|aria2c)\b", command.text) and ("$(" in command.text or "<(" in command.text
                                                                     or "`" in command.text):
        return True
    return any(
        other.pipeline_position < command.pipeline_position and _name(strip_wrappers(other.words)) in _DOWNLOADERS
        for other in pipeline
    )


def _privilege(command: ShellCommand, core: list[str], _: list[ShellCommand]) -> bool:
    wrappers = {os.path.basename(word) for word in command.words[: len(command.words) - len(core)]}
    return bool(wrappers & {"sudo", "doas"}) or _name(core) in ("sudo", "doas", "su", "passwd", "chpasswd", "visudo",
                                                                 "pkexec", "run0", "runuser", "sudoedit")


_RULES = (
    _Rule("recursive-delete-of-root-or-home", 1,
          "recursively deletes /, your home directory or a system directory", _recursive_delete),
    _Rule("format-disk", 1, "formats or wipes a disk", _format_disk),
    _Rule("write-to-device", 1, "writes directly to a device", _write_to_device),
    _Rule("power", 2, "shuts down or reboots the machine", _power),
    _Rule("recursive-permissions-of-root", 2,
          "recursively changes permissions or owners of / or a system directory", _recursive_permissions),
    _Rule("kill-all-processes", 2, "signals every process you own", _kill_everything),
    _Rule("download-to-shell", 2, "pipes a download straight into a shell", _download_to_shell),
    _Rule("privilege-escalation", 3, "runs with elevated privileges (sudo/su/doas/passwd)", _privilege),
)


@dataclass(frozen=True)
class _Pattern:
    """A user rule: ``re:REGEX`` (searched), a glob with ``* ? [`` (whole command), or words (word prefix)."""

    source: str

    def matches(self, words: list[str]) -> bool:
        text = " ".join(words)
        if self.source.startswith("re:"):
            return re.search(self.source[3:], text) is not None
        if any(char in self.source for char in "*?["):
            return fnmatch.fnmatchcase(text, self.source)
        wanted = self.source.split()
        return bool(wanted) and words[: len(wanted)] == wanted


def validate_patterns(patterns: Iterable[str]) -> list[str]:
    """Raise ValueError naming the first pattern whose ``re:`` regex does not compile."""
    checked = []
    for pattern in patterns:
        if pattern.startswith("re:"):
            try:
                re.compile(pattern[3:])
            except re.error as error:
                raise ValueError(f"invalid regex in pattern {pattern!r}: {error}") from None
        checked.append(pattern)
    return checked


_IFS = re.compile(r"\$\{IFS(?:[:%#/][^}]*)?\}|\$IFS\b")
_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")
_MAX_BRACE_WORDS = 64


def _brace_words(word: str) -> list[str]:
    """Bash brace expansion of one word (``{rm,-rf,/}`` -> rm -rf /), empty results dropped, capped."""
    pending, done = [word], []
    while pending and len(done) + len(pending) <= _MAX_BRACE_WORDS:
        current = pending.pop(0)
        match = _BRACES.search(current)
        if match is None:
            done.append(current)
            continue
        pending.extend(current[: match.start()] + choice + current[match.end():] for choice in
                       match.group(1).split(","))
    return [item for item in done + pending if item]


# Programs the built-in rules name: a pathname pattern as the command word (``/usr/bin/su[d]o``, globbed by bash)
# that could name one of them is checked as each of them.
_RULE_PROGRAMS = (
    "sudo", "doas", "su", "passwd", "chpasswd", "visudo", "pkexec", "run0", "runuser", "sudoedit", "rm", "chmod",
    "chown", "chgrp", "mkfs", "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "parted", "shred", "dd", "tee",
    "shutdown", "reboot", "halt", "poweroff", "kexec", "init", "telinit", "systemctl", "kill", "env", "xargs",
    "nohup", "timeout", "nice", "setsid", "eval", *sorted(_SHELLS), *sorted(_DOWNLOADERS),
)
_GLOB_MARKS = frozenset("*?[")


def _glob_words(command: ShellCommand) -> list[list[str]]:
    """The command's words with a pattern-shaped program word replaced by each rule program it can match."""
    index = next((i for i, word in enumerate(command.words) if not is_assignment(word)), None)
    if index is None or command.words[index] in ("[", "[[") or not _GLOB_MARKS & set(command.words[index]):
        return []
    pattern = os.path.basename(command.words[index])
    return [[*command.words[:index], name, *command.words[index + 1:]] for name in _RULE_PROGRAMS
            if fnmatch.fnmatchcase(name, pattern)]


def _variants(command: ShellCommand) -> list[ShellCommand]:
    """The command as written, plus the words bash would really run after ``$IFS`` splitting, brace expansion
    and pathname expansion of the command word (``rm${IFS}-rf${IFS}/``, ``{rm,-rf,/}``, ``/usr/bin/su[d]o``), so
    those spellings meet the same rules."""
    variants = [command]
    for words in _glob_words(command):
        variants.append(ShellCommand(command.text, words, command.pipeline, command.depth, command.too_deep,
                                     command.pipeline_position))
    if any(_IFS.search(word) for word in command.words):
        split = _IFS.sub(" ", " ".join(command.words)).split()
        if split:
            variants.append(ShellCommand(command.text, split, command.pipeline, command.depth, command.too_deep,
                                         command.pipeline_position))
    if any(_BRACES.search(word) for word in command.words):
        expanded = [item for word in command.words for item in _brace_words(word)]
        if expanded and expanded != command.words:
            variants.append(ShellCommand(command.text, expanded, command.pipeline, command.depth,
                                         command.too_deep, command.pipeline_position))
    return variants


def _forms(command: ShellCommand) -> tuple[list[str], list[str]]:
    """The command's words as written (command name without its directory) and without wrappers."""
    full = list(command.words)
    for index, word in enumerate(full):
        if "=" not in word or word.startswith("-"):
            full[index] = os.path.basename(word) if "/" in word else word
            break
    core = strip_wrappers(command.words)
    if core:
        core = [os.path.basename(core[0]) if "/" in core[0] else core[0], *core[1:]]
    return full, core


class CommandPolicy:
    """Decides whether a command line may run. Pure: no I/O, safe to call from any hook."""

    def __init__(
        self,
        profile: str = "strict",
        denied: Iterable[str] = (),
        allowed: Iterable[str] = (),
        exempt: Iterable[str] = (),
    ) -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown safety_profile {profile!r}; use one of {', '.join(PROFILES)}")
        self.profile = profile
        self._level = _LEVEL[profile]
        self._denied = [_Pattern(p) for p in validate_patterns(denied)]
        self._allowed = [_Pattern(p) for p in validate_patterns(allowed)]
        self._exempt = [_Pattern(p) for p in validate_patterns(exempt)]

    def check(self, line: str) -> PolicyDecision:
        if self._level >= 1 and _FORK_BOMB.search(line):
            return PolicyDecision(False, "is a fork bomb (a function that endlessly starts copies of itself)",
                                  line.strip(), "fork-bomb")
        commands = parse_commands(line)
        pipelines: dict[int, list[ShellCommand]] = {}
        for command in commands:
            pipelines.setdefault(command.pipeline, []).append(command)
        for command in commands:
            decision = self._check_command(command, pipelines[command.pipeline])
            for variant in _variants(command)[1:]:
                if not decision.allowed:
                    break
                decision = self._check_command(variant, pipelines[command.pipeline], check_allowed=False)
            if not decision.allowed:
                return decision
        return PolicyDecision(True)

    def _check_command(self, command: ShellCommand, pipeline: list[ShellCommand],
                       check_allowed: bool = True) -> PolicyDecision:
        if command.too_deep:
            return PolicyDecision(False, "nests commands too deeply to check", command.text, "too-deep")
        full, core = _forms(command)
        for pattern in self._denied:
            if pattern.matches(full) or (core and pattern.matches(core)):
                return PolicyDecision(False, f"matches the denied pattern {pattern.source!r}", command.text,
                                      "denied_commands")
        exempt = any(pattern.matches(full) for pattern in self._exempt)
        if not exempt:
            for rule in _RULES:
                if rule.level <= self._level and rule.matches(command, core, pipeline):
                    return PolicyDecision(False, rule.reason, command.text, rule.name)
        dynamic = dynamic_command_word(command.words) if check_allowed and self._allowed else None
        if dynamic is not None:
            return PolicyDecision(False, f"takes its command name from an expansion ({dynamic}), which no pattern in "
                                  "allowed_commands can vouch for", command.text, "dynamic-command")
        if check_allowed and self._allowed and not exempt and \
                not any(pattern.matches(full) for pattern in self._allowed):
            allowed = ", ".join(repr(p.source) for p in self._allowed)
            return PolicyDecision(False, f"is not in allowed_commands ({allowed}); every command of a compound "
                                  "line must be allowed", command.text, "allowed_commands")
        return PolicyDecision(True)
