"""The bash safety policy (the deny list): judge EVERY command a line could run, on the shared parse of the line
(``amplifier_support.shell``, wide reading), so an allowed prefix cannot smuggle a denied command through
``;``, ``&&``, pipes, substitutions, subshells, functions, ``bash -c``, ``eval`` or a wrapper.

Command words are judged as a static reading expects bash to make them: quoting, ANSI-C (``$'\\u0073udo'``) and
locale (``$"sudo"``) strings decoded, empty substitutions (``su$()do``) dropped, brace expansion
(``su{d..d}o``) and ``$IFS`` splitting done. Paths of destructive commands are normalised (``//etc``,
``/usr/../etc``) and globs are matched against the protected roots. A line that does not parse is refused:
what cannot be read cannot be checked.

Profiles (each includes the previous): ``permissive`` blocks what destroys the machine (recursive delete of
``/``/``~``/system dirs, mkfs, writing to block devices, fork bombs, lines that do not parse); ``standard`` adds
shutdown/reboot, recursive chmod/chown of those dirs, ``kill -1`` and a download run by a shell; ``strict``
adds privilege escalation (sudo, su, doas, passwd). ``unrestricted`` has no built-in rules. User patterns
apply in every profile.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from amplifier_support.shell import LineReading, Step, Word, read_line
from amplifier_support.shell.wrappers import SHELLS, basename, is_assignment

PROFILES = ("strict", "standard", "permissive", "unrestricted")
_LEVEL = {"unrestricted": 0, "permissive": 1, "standard": 2, "strict": 3}

_SYSTEM_DIRS = frozenset({"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/opt", "/proc",
                          "/root", "/sbin", "/srv", "/sys", "/usr", "/var", "/System", "/Users", "/Library",
                          "/Applications", "/private"})
_HARMLESS_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/full",
                               "/dev/random", "/dev/urandom"})
_DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c"})
_RUNS_SCRIPTS = SHELLS | {"source", ".", "eval"}
_PRIVILEGED = frozenset({"sudo", "doas", "su", "passwd", "chpasswd", "visudo", "pkexec", "run0", "runuser",
                         "sudoedit"})
_GLOB_MARKS = frozenset("*?[")


@dataclass(frozen=True)
class PolicyDecision:
    """``allowed`` plus, when refused, which simple command, which rule, and why."""

    allowed: bool
    reason: str = ""
    command: str = ""
    rule: str = ""


@dataclass(frozen=True)
class _Context:
    reading: LineReading
    hosted_downloads: frozenset[int]  # id() of commands whose words hold a substitution that downloads
    first_download: dict[tuple[int, int], int]  # (id of the parse, pipeline) -> position of its first downloader
    parse_of: dict[int, int]  # id() of a command -> id of the parse it is in


@dataclass(frozen=True)
class _Rule:
    name: str
    level: int
    reason: str
    matches: Callable[[Step, list[str], _Context], bool]


def _name(words: list[str]) -> str:
    return basename(words[0]) if words else ""


def _normalised(target: str) -> str:
    """``//etc`` and ``/usr/../etc`` are ``/etc``; trailing ``/``, ``/.`` and ``/*`` dropped."""
    if target.startswith("/"):
        target = "/" + re.sub(r"/+", "/", target).lstrip("/")
        target = posixpath.normpath(target)
    while True:
        stripped = target
        for suffix in ("/*", "/.", "/"):
            if stripped.endswith(suffix) and stripped != "/":
                stripped = stripped[: -len(suffix)]
        if stripped == target:
            return target
        target = stripped


def _is_dangerous_target(raw: str) -> bool:
    target = _normalised(raw)
    if target in ("", "/", ".*", "~", "$HOME", "${HOME}", "/*") or target in _SYSTEM_DIRS:
        return True
    if target.startswith("~") and "/" not in target:  # ~user
        return True
    if target.startswith("/") and _GLOB_MARKS & set(target):  # /e*, /u?r: a glob that can match a root
        return any(fnmatch.fnmatchcase(root, target) for root in _SYSTEM_DIRS) or fnmatch.fnmatchcase("/", target)
    home = os.path.expanduser("~").rstrip("/")
    return bool(home) and target == home


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


def _recursive_delete(_: Step, core: list[str], __: _Context) -> bool:
    if _name(core) != "rm":
        return False
    if "--no-preserve-root" in core:
        return True
    return _has_flag(core, "rR", "--recursive") and any(_is_dangerous_target(t) for t in _operands(core))


def _recursive_permissions(_: Step, core: list[str], __: _Context) -> bool:
    if _name(core) not in ("chmod", "chown", "chgrp"):
        return False
    return _has_flag(core, "R", "--recursive") and any(_is_dangerous_target(t) for t in _operands(core)[1:])


def _format_disk(_: Step, core: list[str], __: _Context) -> bool:
    name = _name(core)
    if name.startswith("mkfs") or name in ("mke2fs", "mkswap", "wipefs"):
        return True
    return name in ("fdisk", "sfdisk", "parted", "shred") and any(w.startswith("/dev/") for w in core[1:])


def _is_device(path: str) -> bool:
    path = _normalised(path)
    if not path.startswith("/dev/") or path in _HARMLESS_DEVICES:
        return False
    return not path.startswith(("/dev/fd/", "/dev/shm/", "/dev/pts/"))


def _write_to_device(step: Step, core: list[str], _: _Context) -> bool:
    if _name(core) == "dd" and any(w.startswith("of=") and _is_device(w[3:]) for w in core[1:]):
        return True
    for redirect in step.command.redirects:
        target = redirect.target
        if redirect.writes and target is not None and any(_is_device(item) for item in target.readings):
            return True
    return _name(core) == "tee" and any(_is_device(w) for w in _operands(core))


def _power(_: Step, core: list[str], __: _Context) -> bool:
    name = _name(core)
    if name in ("shutdown", "reboot", "halt", "poweroff", "kexec"):
        return True
    if name in ("init", "telinit") and len(core) > 1 and core[1] in ("0", "6"):
        return True
    return name == "systemctl" and any(w in ("poweroff", "reboot", "halt", "kexec") for w in core[1:])


def _kill_everything(_: Step, core: list[str], __: _Context) -> bool:
    return _name(core) == "kill" and "-1" in core[1:]


def _download_to_shell(step: Step, core: list[str], context: _Context) -> bool:
    """``curl ... | sh``, ``bash <(curl ...)``, ``source <(curl ...)``, ``eval "$(curl ...)"``."""
    if _name(core) not in _RUNS_SCRIPTS:
        return False
    if id(step.command) in context.hosted_downloads:
        return True
    command = step.command
    if command.pipeline < 0:
        return False
    first = context.first_download.get((context.parse_of.get(id(command), 0), command.pipeline))
    return first is not None and first < command.position


def _privilege(step: Step, core: list[str], _: _Context) -> bool:
    wrappers = {basename(word) for word in step.unwrapped.wrappers}
    return bool(wrappers & _PRIVILEGED) or _name(core) in _PRIVILEGED or _name(step.words) in _PRIVILEGED


def _fork_bomb(step: Step, core: list[str], _: _Context) -> bool:
    """A function that calls itself in the background or in a pipeline (``f(){ f|f& }``, ``f(){ f & f; }``)."""
    command = step.command
    return command.function is not None and _name(core) == command.function and \
        (command.background or command.pipeline >= 0)


_RULES = (
    _Rule("fork-bomb", 1, "is a fork bomb (a function that endlessly starts copies of itself)", _fork_bomb),
    _Rule("recursive-delete-of-root-or-home", 1,
          "recursively deletes /, your home directory or a system directory", _recursive_delete),
    _Rule("format-disk", 1, "formats or wipes a disk", _format_disk),
    _Rule("write-to-device", 1, "writes directly to a device", _write_to_device),
    _Rule("power", 2, "shuts down or reboots the machine", _power),
    _Rule("recursive-permissions-of-root", 2,
          "recursively changes permissions or owners of / or a system directory", _recursive_permissions),
    _Rule("kill-all-processes", 2, "signals every process you own", _kill_everything),
    _Rule("download-to-shell", 2, "runs a download as shell code", _download_to_shell),
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


# Programs the built-in rules name: a pathname pattern as the command word (``/usr/bin/su[d]o``, globbed by bash)
# that could name one of them is checked as each of them.
_RULE_PROGRAMS = (
    *sorted(_PRIVILEGED), "rm", "chmod", "chown", "chgrp", "mkfs", "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk",
    "parted", "shred", "dd", "tee", "shutdown", "reboot", "halt", "poweroff", "kexec", "init", "telinit",
    "systemctl", "kill", "env", "xargs", "nohup", "timeout", "nice", "setsid", "eval", "source",
    *sorted(SHELLS), *sorted(_DOWNLOADERS),
)


def _glob_variants(words: list[str]) -> list[list[str]]:
    """The words with a pattern-shaped program word replaced by each rule program it can match."""
    index = next((i for i, word in enumerate(words) if not is_assignment(word)), None)
    if index is None or words[index] in ("[", "[[") or not _GLOB_MARKS & set(words[index]):
        return []
    pattern = basename(words[index])
    return [[*words[:index], name, *words[index + 1:]] for name in _RULE_PROGRAMS
            if fnmatch.fnmatchcase(name, pattern)]


def _full(words: list[str]) -> list[str]:
    """The words with the command name without its directory."""
    full = list(words)
    for index, word in enumerate(full):
        if not is_assignment(word) or word.startswith("-"):
            full[index] = basename(word)
            break
    return full


def _hosted_downloads(reading: LineReading) -> frozenset[int]:
    """Commands whose words hold a command or process substitution that runs a downloader."""
    found: set[int] = set()
    for parsed in reading.parsed:
        for command in parsed.commands:
            words = command.readings
            seen = command
            if words and basename(words[0]) in _DOWNLOADERS:
                while seen.host is not None:
                    seen = parsed.commands[seen.host]
                    found.add(id(seen))
    return frozenset(found)


class CommandPolicy:
    """Decides whether a command line may run. Pure: no I/O; call it off the event loop (it parses)."""

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
        reading = read_line(line, strict=False)
        if reading.too_deep and (self._level >= 1 or self._allowed):
            return PolicyDecision(False, "nests commands too deeply to check", _short(line), "too-deep")
        if reading.parse_error and (self._level >= 1 or self._allowed):
            part = next((item.part for item in reading.unjudged if "parse error" in item.reason), "") or _short(line)
            return PolicyDecision(False, "is not a line bash can run as written, or not one this policy can read "
                                  "(a parse error), so it cannot be checked; write it as simpler commands",
                                  part, "unparsable")
        parse_of = {id(command): id(parsed) for parsed in reading.parsed for command in parsed.commands}
        first_download: dict[tuple[int, int], int] = {}
        for step in reading.steps:
            if step.command.pipeline >= 0 and _name(step.core) in _DOWNLOADERS:
                key = (parse_of.get(id(step.command), 0), step.command.pipeline)
                first_download[key] = min(first_download.get(key, step.command.position), step.command.position)
        context = _Context(reading, _hosted_downloads(reading), first_download, parse_of)
        for step in reading.steps:
            decision = self._check_step(step, step.words, context)
            if not decision.allowed:
                return decision
            for variant in _glob_variants(step.words):
                decision = self._check_step(step, variant, context, check_allowed=False)
                if not decision.allowed:
                    return decision
        return PolicyDecision(True)

    def _check_step(self, step: Step, words: list[str], context: _Context,
                    check_allowed: bool = True) -> PolicyDecision:
        full = _full(words)
        core = step.core if words is step.words else _full(words)
        if core:
            core = [basename(core[0]), *core[1:]]
        text = step.text
        for pattern in self._denied:
            if pattern.matches(full) or (core and pattern.matches(core)):
                return PolicyDecision(False, f"matches the denied pattern {pattern.source!r}", text,
                                      "denied_commands")
        exempt = any(pattern.matches(full) for pattern in self._exempt)
        if not exempt:
            for rule in _RULES:
                if rule.level <= self._level and rule.matches(step, core, context):
                    return PolicyDecision(False, rule.reason, text, rule.name)
        if not (check_allowed and self._allowed):
            return PolicyDecision(True)
        names = [] if step.exec_of else [step.command.words[0], _program_word(step)]
        first = next((word for word in names if word is not None and (word.value is None or word.quoted
                                                                      or word.glob)), None)
        if first is not None:
            return PolicyDecision(False, f"takes its command name from {first.why or 'quoting or a pattern'} "
                                  f"({first.source}), which no pattern in allowed_commands can vouch for", text,
                                  "dynamic-command")
        if not exempt and not any(pattern.matches(full) for pattern in self._allowed):
            allowed = ", ".join(repr(p.source) for p in self._allowed)
            return PolicyDecision(False, f"is not in allowed_commands ({allowed}); every command of a compound "
                                  "line must be allowed", text, "allowed_commands")
        return PolicyDecision(True)


def _program_word(step: Step) -> Word | None:
    """The parsed word that names the program really run (behind wrappers: ``sudo $x`` -> ``$x``)."""
    owners = [word for word in step.command.words for _ in word.readings]
    position = len(step.words) - len(step.unwrapped.command) if step.unwrapped.command else 0
    if not step.unwrapped.command and not step.unwrapped.scripts:
        position = len(step.words)
    if position < len(owners):
        return owners[position]
    return step.command.words[0] if step.command.words else None


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 120 else text[:119] + "…"
