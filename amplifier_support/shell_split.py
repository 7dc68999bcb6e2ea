"""Split a bash command line into the simple commands it would run, so a policy can judge every one of them.

In the kernel because two modules need the same reading of a line (tool-bash's safety policy and
hooks-approval's rules) and modules cannot import each other. Standard library only.

What counts as a separate command: everything joined by ``;``, ``&&``, ``||``, ``|``, ``|&``, ``&`` and
newlines; the insides of ``$(...)``, backticks, ``<(...)``/``>(...)`` and ``( ... )`` subshells (also inside
double quotes and ``${...}``); the script string of ``bash -c '...'``/``sh -c`` (also behind wrappers such
as ``sudo``, ``env``, ``xargs``); the arguments of ``eval``; the command of ``find -exec ... ;``; function
bodies (``f(){ ...; }``, ``function f { ...; }``); alias values; ``env -S STRING``; and a here-string fed
to a shell or ``source``.
Leading reserved words (``if``, ``then``, ``do``, ``!``, ``{``, ...) are dropped. Heredoc bodies are checked as
commands (conservative: ``bash <<EOF`` runs them). Parsing is lenient: an unterminated quote runs to the end.

This is static analysis, not a sandbox: ``$VAR`` holding a command, or a script file, cannot be seen.
``dynamic_command_word`` tells when that is the case, so a policy can refuse to guess (``s=sudo; $s ls``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

__all__ = [
    "MAX_NESTING",
    "ShellCommand",
    "command_words",
    "dynamic_command_word",
    "is_assignment",
    "parse_commands",
    "split_commands",
    "split_pipelines",
    "strip_wrappers",
]

MAX_NESTING = 8
"""Deeper nesting than this is reported as a command with ``too_deep=True`` (a policy should refuse it)."""

_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"})
_LEADING_KEYWORDS = frozenset({"if", "then", "elif", "else", "do", "while", "until", "!", "{", "time", "coproc"})
_CLOSING_KEYWORDS = frozenset({"fi", "done", "esac", "}", "in"})
_HEADER_KEYWORDS = frozenset({"for", "select", "case", "function"})
# Wrapper -> options of that wrapper that take a separate argument.
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "-o"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "exec": frozenset({"-a"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "setsid": frozenset(),
    "xargs": frozenset({"-I", "-i", "-n", "-P", "-L", "-l", "-d", "-s", "-E", "-e", "-a", "--arg-file",
                        "--delimiter", "--max-args", "--max-procs", "--replace"}),
    "chroot": frozenset(),
    "watch": frozenset({"-n", "-d", "--interval"}),
    "strace": frozenset({"-e", "-o", "-p", "-s"}),
    "flock": frozenset({"-w", "-E"}),
    "unshare": frozenset({"-S", "-G", "-R", "-w", "--setuid", "--setgid", "--root", "--wd", "--propagation",
                          "--map-user", "--map-group", "--map-users", "--map-groups"}),
}
_WRAPPER_POSITIONALS = {"timeout": 1, "chroot": 1, "flock": 1}
_FUNCTION_HEADER = re.compile(r"\s*[A-Za-z_][\w.:-]*\s*\(\s*\)")


@dataclass
class ShellCommand:
    """One simple command: its source text, its words with quotes removed, and where it came from."""

    text: str
    words: list[str]
    pipeline: int = 0
    depth: int = 0
    too_deep: bool = False
    pipeline_position: int = 0


@dataclass
class _Pending:
    start: int | None = None
    word_starts: list[int] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    nested: list[list[ShellCommand]] = field(default_factory=list)


def _basename(word: str) -> str:
    return os.path.basename(word) if "/" in word else word


def strip_wrappers(words: list[str]) -> list[str]:
    """The words of the command a wrapper runs (``sudo -u x env A=1 nice rm -rf /`` -> ``rm -rf /``);
    leading ``NAME=value`` assignments are dropped too."""
    index = 0
    while index < len(words):
        word = words[index]
        if is_assignment(word):
            index += 1
            continue
        name = _basename(word)
        if name not in _WRAPPERS:
            break
        takes_value = _WRAPPERS[name]
        index += 1
        while index < len(words) and words[index].startswith("-") and words[index] != "-":
            option = words[index]
            index += 1
            if option == "--":
                break
            if option in takes_value and "=" not in option and index < len(words):
                index += 1
        if name == "env":
            while index < len(words) and is_assignment(words[index]):
                index += 1
        index += _WRAPPER_POSITIONALS.get(name, 0)
    return words[index:]


def is_assignment(word: str) -> bool:
    """``NAME=value`` (a variable assignment, not a command word)."""
    name, equals, _ = word.partition("=")
    return bool(equals) and bool(name) and (name[0].isalpha() or name[0] == "_") and \
        all(char.isalnum() or char == "_" for char in name)


class _Parser:
    """Recursive scanner over one piece of shell text; ``parse`` stops at ``terminator`` (``)``) or the end."""

    def __init__(self, text: str, depth: int) -> None:
        self.text = text
        self.depth = depth
        self.pos = 0
        self.pipelines: list[list[ShellCommand]] = []
        self.current_pipeline: list[ShellCommand] = []
        self.pending = _Pending()
        self.word: list[str] | None = None

    # -- words and commands ------------------------------------------------------------------
    def _start_word(self) -> None:
        if self.word is None:
            self.word = []
            if self.pending.start is None:
                self.pending.start = self.pos
            self.pending.word_starts.append(self.pos)

    def _add(self, chars: str) -> None:
        self._start_word()
        assert self.word is not None
        self.word.append(chars)

    def _end_word(self) -> None:
        if self.word is not None:
            self.pending.words.append("".join(self.word))
            self.word = None

    def _end_command(self, end: int) -> None:
        self._end_word()
        pending, self.pending = self.pending, _Pending()
        words, starts = pending.words, pending.word_starts
        if words and self.text[starts[0]:end].lstrip().startswith("function") and words[0] == "function":
            skip = 2  # `function NAME [()] { body` -> the body's first command
        elif len(words) > 1 and words[1] == "{" and _FUNCTION_HEADER.match(self.text, starts[0]):
            skip = 1  # `NAME() { body`
        else:
            skip = 0
        timed = False
        while skip < len(words) and (words[skip] in _LEADING_KEYWORDS or (timed and words[skip] in ("-p", "--"))):
            timed = timed or words[skip] == "time"
            skip += 1
        words, starts = words[skip:], starts[skip:]
        while words and words[-1] in _CLOSING_KEYWORDS and len(words) == 1:
            words, starts = [], []
        if words and words[0] in _HEADER_KEYWORDS:
            words, starts = [], []
        if words:
            text = self.text[starts[0]:end].strip()
            command = ShellCommand(text, words, depth=self.depth, pipeline_position=len(self.current_pipeline))
            self.current_pipeline.append(command)
            self._expand_inner(words)
        for nested in pending.nested:
            self._nested_after.extend(nested)

    def _end_pipeline(self) -> None:
        if self.current_pipeline:
            self.pipelines.append(self.current_pipeline)
            self.current_pipeline = []
        if self._nested_after:
            self.pipelines.extend(self._nested_after)
            self._nested_after = []

    def _expand_inner(self, words: list[str]) -> None:
        """Commands run by this command: ``bash -c STRING``, ``eval ARGS``, ``find -exec CMD ;``, an alias
        value, ``env -S STRING``, a here-string fed to a shell or ``source``."""
        for inner in [*_inner_scripts(words), *_alias_values(words), *_env_split_strings(words),
                      *_herestring_scripts(words)]:
            self._nested_after.extend(_parse(inner, self.depth + 1))
        for exec_words in _find_exec_commands(words):
            text = " ".join(exec_words)
            command = ShellCommand(text, exec_words, depth=self.depth + 1)
            self._nested_after.append([command])
            for inner in _inner_scripts(exec_words):
                self._nested_after.extend(_parse(inner, self.depth + 2))

    def _nest(self, inner_text: str) -> None:
        self.pending.nested.append(_parse(inner_text, self.depth + 1))

    # -- scanning ----------------------------------------------------------------------------
    def parse(self, terminator: str | None = None) -> int:
        self._nested_after: list[list[ShellCommand]] = []
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            nxt = text[self.pos + 1] if self.pos + 1 < len(text) else ""
            if terminator and char == terminator:
                self._end_command(self.pos)
                self._end_pipeline()
                return self.pos + 1
            if char == "\\":
                if nxt == "\n":
                    self.pos += 2
                    continue
                self._add(nxt)
                self.pos += 2
                continue
            if char in " \t":
                self._end_word()
                self.pos += 1
                continue
            if char == "#" and self.word is None:
                self._end_command(self.pos)
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
                continue
            if char == "'":
                self._start_word()
                end = text.find("'", self.pos + 1)
                end = len(text) if end < 0 else end
                self._add(text[self.pos + 1:end])
                self.pos = end + 1
                continue
            if char == '"':
                self._start_word()
                self.pos = self._double_quoted(self.pos + 1)
                continue
            if char == "$" and nxt == "'":
                self._start_word()
                self.pos = self._ansi_c_quoted(self.pos + 2)
                continue
            if char == "$" and nxt in ("(", "{"):
                self._start_word()
                self.pos = self._dollar(self.pos)
                continue
            if char == "`":
                self._start_word()
                self.pos = self._backtick(self.pos + 1)
                continue
            if char in "<>" and nxt == "(":
                self._start_word()
                start = self.pos
                self.pos = self._nested_parens(self.pos + 2)
                self._add(text[start:self.pos])
                continue
            if char in "<>" or (char == "&" and nxt == ">"):
                self._redirect()
                continue
            if char == "(":
                if self.word is not None and nxt == ")":  # function definition name()
                    self._end_word()
                    self.pos += 2
                    continue
                self._end_command(self.pos)
                self._end_pipeline()
                self.pos = self._nested_parens(self.pos + 1, as_subshell=True)
                continue
            if char == ")":  # stray close (case patterns): a separator
                self._end_command(self.pos)
                self._end_pipeline()
                self.pos += 1
                continue
            if char == "|":
                self._end_command(self.pos)
                if nxt == "|":
                    self._end_pipeline()
                    self.pos += 2
                else:
                    self.pos += 2 if nxt == "&" else 1
                continue
            if char in ";&\n":
                self._end_command(self.pos)
                self._end_pipeline()
                self.pos += 2 if (char == "&" and nxt == "&") or (char == ";" and nxt in (";", "&")) else 1
                continue
            self._add(char)
            self.pos += 1
        self._end_command(len(text))
        self._end_pipeline()
        return self.pos

    def _redirect(self) -> None:
        """Operators such as ``>``, ``2>>``, ``&>``, ``>&``, ``<<<`` become words of their own."""
        text = self.text
        if self.word is not None and "".join(self.word).isdigit():
            prefix = "".join(self.word)
            self.word = None
            self.pending.word_starts.pop()
        else:
            self._end_word()
            prefix = ""
        start = self.pos
        while self.pos < len(text) and text[self.pos] in "<>&|-" and self.pos - start < 3:
            if text[self.pos] in "|-" and self.pos == start:
                break
            self.pos += 1
        self._start_word_at(start)
        self.pending.words.append(prefix + text[start:self.pos])

    def _start_word_at(self, start: int) -> None:
        if self.pending.start is None:
            self.pending.start = start
        self.pending.word_starts.append(start)

    def _double_quoted(self, pos: int) -> int:
        text = self.text
        while pos < len(text):
            char = text[pos]
            if char == '"':
                return pos + 1
            if char == "\\" and pos + 1 < len(text):
                following = text[pos + 1]
                self._add(following if following in '$`"\\\n' else char + following)
                pos += 2
            elif char == "$" and pos + 1 < len(text) and text[pos + 1] in "({":
                pos = self._dollar(pos)
            elif char == "`":
                pos = self._backtick(pos + 1)
            else:
                self._add(char)
                pos += 1
        return pos

    def _ansi_c_quoted(self, pos: int) -> int:
        text = self.text
        escapes = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "e": "\x1b"}
        while pos < len(text):
            char = text[pos]
            if char == "'":
                return pos + 1
            if char == "\\" and pos + 1 < len(text):
                following = text[pos + 1]
                if following == "x":
                    digits = ""
                    while len(digits) < 2 and pos + 2 + len(digits) < len(text) and \
                            text[pos + 2 + len(digits)] in "0123456789abcdefABCDEF":
                        digits += text[pos + 2 + len(digits)]
                    if digits:
                        self._add(chr(int(digits, 16)))
                        pos += 2 + len(digits)
                        continue
                if following in "01234567":
                    digits = ""
                    while len(digits) < 3 and pos + 1 + len(digits) < len(text) and \
                            text[pos + 1 + len(digits)] in "01234567":
                        digits += text[pos + 1 + len(digits)]
                    self._add(chr(int(digits, 8)))
                    pos += 1 + len(digits)
                    continue
                self._add(escapes.get(following, "\\" + following))
                pos += 2
            else:
                self._add(char)
                pos += 1
        return pos

    def _dollar(self, pos: int) -> int:
        """``$(cmd)``, ``$((arith))`` or ``${param}`` starting at ``pos``; returns the position after it."""
        text = self.text
        start = pos
        if text.startswith("$((", pos):
            end = _matching_close(text, pos + 1)
            inner = text[pos + 3:max(end - 2, pos + 3)]
            if "$(" in inner or "`" in inner:
                self._nest(inner)
            self._add(text[start:end])
            return end
        if text[pos + 1] == "(":
            end = self._nested_parens(pos + 2)
            self._add(text[start:end])
            return end
        depth = 0
        pos += 1
        while pos < len(text):  # ${ ... } may hold $(...) in a default value
            char = text[pos]
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    pos += 1
                    break
            elif char == "$" and pos + 1 < len(text) and text[pos + 1] == "(":
                end = self._nested_parens(pos + 2)
                pos = end
                continue
            elif char == "`":
                pos = self._backtick(pos + 1)
                continue
            elif char == "\\":
                pos += 1
            pos += 1
        self._add(text[start:pos])
        return pos

    def _backtick(self, pos: int) -> int:
        text = self.text
        inner: list[str] = []
        while pos < len(text) and text[pos] != "`":
            if text[pos] == "\\" and pos + 1 < len(text) and text[pos + 1] in "`$\\":
                inner.append(text[pos + 1])
                pos += 2
                continue
            inner.append(text[pos])
            pos += 1
        self._nest("".join(inner))
        self._add("`" + "".join(inner) + "`")
        return pos + 1

    def _nested_parens(self, pos: int, as_subshell: bool = False) -> int:
        """Parse from ``pos`` to the matching ``)``; its commands become nested (or top-level for a subshell)."""
        if self.depth + 1 > MAX_NESTING:
            end = _matching_close(self.text, pos - 1)
            self.pending.nested.append([[ShellCommand(self.text[pos:end], [], depth=self.depth + 1,
                                                      too_deep=True)]])
            return end
        child = _Parser(self.text, self.depth + (0 if as_subshell else 1))
        child.pos = pos
        end = child.parse(terminator=")")
        if as_subshell:
            self.pipelines.extend(child.pipelines)
        else:
            self.pending.nested.append(child.pipelines)
        return end


def _matching_close(text: str, open_pos: int) -> int:
    """Position just after the ``)`` matching the ``(`` at ``open_pos`` (quote-aware, lenient)."""
    depth = 0
    pos = open_pos
    quote = ""
    while pos < len(text):
        char = text[pos]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"':
                pos += 1
        elif char in "'\"":
            quote = char
        elif char == "\\":
            pos += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return pos + 1
        pos += 1
    return len(text)


def _script_command(command: list[str]) -> list[str]:
    """``script -c CMD`` / ``--command[=]CMD``: script(1) runs CMD with the user's shell."""
    for index, word in enumerate(command[1:], start=1):
        following = command[index + 1] if index + 1 < len(command) else ""
        if word == "--command":
            return [following]
        if word.startswith("--command="):
            return [word.partition("=")[2]]
        if word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
            rest = word[word.index("c", 1) + 1:]
            return [rest or following]
    return []


def _trap_action(command: list[str]) -> list[str]:
    """``trap 'CMD' SIGNAL...``: CMD runs when the signal (or EXIT) comes."""
    arguments = command[1:]
    if arguments and arguments[0] == "--":
        arguments = arguments[1:]
    elif arguments and arguments[0].startswith("-"):  # -p / -l list, they run nothing
        return []
    return [arguments[0]] if len(arguments) > 1 else []


def _inner_scripts(words: list[str]) -> list[str]:
    """Script strings this command hands to a shell: ``bash -c STR``, ``sh -lc STR``, ``eval ARGS``,
    ``trap STR SIG``, ``script -c STR``."""
    command = strip_wrappers(words)
    if not command:
        return []
    name = _basename(command[0])
    if name == "eval":
        return [" ".join(command[1:])] if len(command) > 1 else []
    if name == "trap":
        return [item for item in _trap_action(command) if item]
    if name == "script":
        return [item for item in _script_command(command) if item]
    if name == "busybox" and len(command) > 1 and _basename(command[1]) in _SHELLS:
        command = command[1:]
        name = _basename(command[0])
    if name not in _SHELLS:
        return []
    index = 1
    while index < len(command):
        option = command[index]
        if option.startswith("-") and not option.startswith("--") and "c" in option[1:]:
            return [command[index + 1]] if index + 1 < len(command) else []
        if not option.startswith("-") and not option.startswith("+"):
            return []
        index += 1
    return []


def _alias_values(words: list[str]) -> list[str]:
    """``alias r='rm -rf /'`` -> ``["rm -rf /"]``: with expand_aliases a later line runs it; likewise the
    program of ``hash -p PROGRAM NAME``."""
    command = strip_wrappers(words)
    if command[:2] == ["hash", "-p"] and len(command) > 2:  # `hash -p /usr/bin/sudo s`: s now runs sudo
        return [command[2]]
    if not command or command[0] != "alias":
        return []
    return [word.partition("=")[2] for word in command[1:] if "=" in word and not word.startswith("-")]


def _env_split_strings(words: list[str]) -> list[str]:
    """``env -S 'sudo ls'`` (also ``-SSTR``, ``--split-string[=]STR``): env splits STR into a command."""
    found: list[str] = []
    in_env = False
    for index, word in enumerate(words):
        if _basename(word) == "env":
            in_env = True
            continue
        if not in_env:
            continue
        following = words[index + 1] if index + 1 < len(words) else ""
        if word in ("-S", "--split-string"):
            found.append(following)
        elif word.startswith("--split-string="):
            found.append(word.partition("=")[2])
        elif word.startswith("-S") and not word.startswith("--"):
            found.append(word[2:])
        elif not word.startswith("-") and not is_assignment(word):
            in_env = False
    return [item for item in found if item]


def _herestring_scripts(words: list[str]) -> list[str]:
    """``bash <<< 'sudo ls'`` or ``. /dev/stdin <<< '...'``: the here-string is the script that runs."""
    if "<<<" not in words:
        return []
    index = words.index("<<<")
    command = strip_wrappers(words[:index])
    if not command or (_basename(command[0]) not in _SHELLS and command[0] not in (".", "source")):
        return []
    return [words[index + 1]] if index + 1 < len(words) else []


def _find_exec_commands(words: list[str]) -> list[list[str]]:
    command = strip_wrappers(words)
    if not command or _basename(command[0]) != "find":
        return []
    found: list[list[str]] = []
    index = 1
    while index < len(command):
        if command[index] in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(command) and command[end] not in (";", "+"):
                end += 1
            if end > index + 1:
                found.append(command[index + 1:end])
            index = end
        index += 1
    return found


def _parse(text: str, depth: int) -> list[list[ShellCommand]]:
    if depth > MAX_NESTING:
        return [[ShellCommand(text.strip(), [], depth=depth, too_deep=True)]]
    parser = _Parser(text, depth)
    parser.parse()
    return parser.pipelines


def parse_commands(line: str) -> list[ShellCommand]:
    """Every simple command of ``line`` (nested ones included), each knowing its pipeline number."""
    commands: list[ShellCommand] = []
    for number, pipeline in enumerate(_parse(line, 0)):
        for command in pipeline:
            command.pipeline = number
            commands.append(command)
    return commands


def split_pipelines(line: str) -> list[list[str]]:
    """The commands of ``line`` grouped by pipeline (``a | b; c`` -> ``[["a", "b"], ["c"]]``)."""
    return [[command.text for command in pipeline] for pipeline in _parse(line, 0)]


def split_commands(line: str) -> list[str]:
    """The source text of every simple command ``line`` would run, nested ones included.

    ``split_commands("ls; echo $(rm -rf ~)")`` -> ``["ls", "echo $(rm -rf ~)", "rm -rf ~"]``.
    """
    return [command.text for command in parse_commands(line)]


def command_words(command: str) -> list[str]:
    """The words of the first simple command in ``command``, quotes and escapes removed."""
    commands = parse_commands(command)
    return commands[0].words if commands else []


_EXPANSION_MARKS = ("$", "`")
_GLOB_MARKS = ("*", "?", "[")
_TEST_COMMANDS = frozenset({"[", "[["})


def dynamic_command_word(words: list[str]) -> str | None:
    """The word that names the command when it comes from an expansion, else None: ``$s -n true``,
    ``${x}``, ``$(cat cmd)``, backticks, a pathname pattern (``/usr/bin/su[d]o``), also behind wrappers
    (``sudo $x``), and ``eval`` of anything that is not a literal (``eval "$cmd"``). What such a command runs
    is only known at run time. (Words are compared unquoted, so a quoted ``'a*b'`` counts too: asked, not
    allowed, which is the safe side.)"""
    command = strip_wrappers(words)
    if not command:
        return None
    if any(mark in command[0] for mark in _EXPANSION_MARKS):
        return command[0]
    # the program words: the command's name and the wrappers' names before it (``/usr/*/sudo ls``)
    names = [word for word in words[: len(words) - len(command)] if not word.startswith("-")
             and not is_assignment(word)] + [command[0]]
    for name in names:
        if name not in _TEST_COMMANDS and any(mark in name for mark in _GLOB_MARKS):
            return name
    if _basename(command[0]) == "eval":
        for word in command[1:]:
            if any(mark in word for mark in _EXPANSION_MARKS):
                return f"eval {word}"
    return None
