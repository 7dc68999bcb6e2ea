"""Read a bash line with tree-sitter's bash grammar into the simple commands it runs and the parts of it that
cannot be judged statically, each with the reason.

A policy may vouch for a line only when ``ParsedLine.plain`` holds: nothing but simple commands of literal
words, joined by ``&&``, ``||``, ``;`` and ``|``. Everything else (expansions, substitutions, heredocs,
functions, compound statements, assignments, background jobs, a parse error, a node type this code does not
know) is listed in ``ParsedLine.unjudged``. The commands found inside such parts are still listed in
``ParsedLine.commands`` (``nested=True``), so a deny list sees every command the line could run.

tree-sitter is imported on the first parse, not at import time: the app's startup must not pay for it.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_DEPTH", "Command", "ParsedLine", "Redirect", "Unjudged", "Word", "parse_line"]

MAX_DEPTH = 100
"""Syntax-tree levels read; anything deeper is one unjudged part ("nested too deeply")."""

_SHOWN = 80  # characters of a part's source shown in a reason

_STATEMENTS = frozenset({
    "command", "redirected_statement", "pipeline", "list", "subshell", "compound_statement", "if_statement",
    "while_statement", "for_statement", "c_style_for_statement", "case_statement", "negated_command",
    "test_command", "declaration_command", "unset_command", "variable_assignment", "variable_assignments",
    "function_definition", "select_statement",
})
_COMPOUND_REASONS = {
    "subshell": "a subshell ( ... )",
    "compound_statement": "a command group { ...; }",
    "if_statement": "an if statement",
    "while_statement": "a loop",
    "for_statement": "a for loop",
    "c_style_for_statement": "a for loop",
    "select_statement": "a select loop",
    "case_statement": "a case statement",
    "negated_command": "a negated command (!)",
    "test_command": "a test [[ ... ]]",
    "declaration_command": "a declaration (export/declare/local/readonly)",
    "unset_command": "unset",
    "variable_assignment": "a variable assignment",
    "variable_assignments": "variable assignments",
    "function_definition": "a function definition",
}
_WORDISH = frozenset({
    "word", "string", "raw_string", "number", "concatenation", "ansi_c_string", "translated_string",
    "simple_expansion", "expansion", "command_substitution", "process_substitution", "arithmetic_expansion",
    "brace_expression",
})
_REDIRECTS = frozenset({"file_redirect", "herestring_redirect", "heredoc_redirect"})
_WRITE_OPERATORS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
_GLOB = re.compile(r"[*?\[]")
_BRACE = re.compile(r"\{[^{}\s]*(,|\.\.)[^{}\s]*\}")
_BRACE_LIST = re.compile(r"\{([^{}]*,[^{}]*)\}")
_BRACE_RANGE = re.compile(r"\{(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?\}")
_MAX_READINGS = 64
_IFS = re.compile(r"^\$(IFS|\{IFS(?:[:%#/][^}]*)?\})$")
_SPLIT = "\x00"  # marks where $IFS splits a word, in readings


def _shown(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


@dataclass(frozen=True)
class Word:
    """One shell word. ``value`` is what bash passes when the word is literal (plain text, escapes and plain
    quotes only); None when bash computes it at run time, with ``why`` saying what does. ``readings`` are the
    words a static reading expects (ANSI-C and locale strings decoded, empty substitutions dropped, brace
    expansion and ``$IFS`` splitting done): deny lists judge those, since they are what an attacker aims at."""

    source: str
    value: str | None
    readings: tuple[str, ...]
    why: str = ""
    quoted: bool = False  # quotes or escapes were part of it (a command word must be bare)
    glob: bool = False  # has an unquoted pathname pattern (*, ?, [)


@dataclass(frozen=True)
class Redirect:
    operator: str  # ">", ">>", ">|", "&>", "&>>", "<>", "<", ">&", "<&", "<<<", "<<", "<<-"
    fd: str
    target: Word | None
    source: str

    @property
    def writes(self) -> bool:
        """Writes a file: any output redirection except duplicating a descriptor (``2>&1``) or to /dev/null."""
        if self.target is not None and self.target.value == "/dev/null":
            return False
        if self.operator in (">&", "<&"):
            value = self.target.value if self.target else None
            return self.operator == ">&" and not (value is not None and (value.isdigit() or value == "-"))
        return self.operator in _WRITE_OPERATORS


@dataclass
class Command:
    """A simple command as bash would run it."""

    index: int
    text: str
    words: list[Word]
    assignments: list[str] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    nested: bool = False  # inside a substitution, function, compound statement or other unjudged part
    function: str | None = None  # name of the function whose body holds it
    host: int | None = None  # index of the command whose word holds the substitution this one is in
    pipeline: int = -1  # pipeline number (-1: not in a pipeline of two or more)
    position: int = 0  # position in that pipeline
    background: bool = False  # followed by `&` (itself or its pipeline/list)

    @property
    def argv(self) -> list[str] | None:
        """The words' values, or None when any word is not literal."""
        values = [word.value for word in self.words]
        return None if any(value is None for value in values) else [str(value) for value in values]

    @property
    def readings(self) -> list[str]:
        """What a static reading expects bash to run (see ``Word.readings``)."""
        return [reading for word in self.words for reading in word.readings]

    @property
    def name_is_literal(self) -> bool:
        first = self.words[0] if self.words else None
        return first is not None and first.value is not None and not first.quoted and not first.glob


@dataclass(frozen=True)
class Unjudged:
    """A part of the line no policy can vouch for, and why."""

    part: str
    reason: str

    def describe(self) -> str:
        return f"{self.reason}: `{self.part}`" if self.part else self.reason


@dataclass
class ParsedLine:
    line: str
    commands: list[Command] = field(default_factory=list)
    unjudged: list[Unjudged] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)  # every redirection, attached or not
    too_deep: bool = False
    parse_error: bool = False

    @property
    def plain(self) -> bool:
        """Nothing but simple commands of literal words joined by ``&&``, ``||``, ``;`` and ``|``."""
        return not self.unjudged

    @property
    def top_level(self) -> list[Command]:
        return [command for command in self.commands if not command.nested]


# -- tree-sitter, loaded on first use -----------------------------------------------------------------------
_parser_lock = threading.Lock()
_language: Any = None


def _parse_tree(source: bytes) -> Any:
    global _language
    import tree_sitter
    import tree_sitter_bash

    with _parser_lock:
        if _language is None:
            _language = tree_sitter.Language(tree_sitter_bash.language())
    return tree_sitter.Parser(_language).parse(source)


# -- words ----------------------------------------------------------------------------------------------------
DOUBLE_QUOTE_ESCAPABLE = '$`"\\\n'  # what a backslash escapes inside "..." (elsewhere it stays a backslash)


def _unescape(text: str, escapable: str | None = None) -> str:
    """A word's value with its backslashes read: ``\\x`` is x (in double quotes only for x in ``escapable``; a
    bare word, ``escapable=None``, escapes anything), and a backslash-newline vanishes."""
    out, index = [], 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text) and (escapable is None or text[index + 1] in escapable):
            if text[index + 1] != "\n":
                out.append(text[index + 1])
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)



_ANSI_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f",
                 "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ANSI = re.compile(r"\\(u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|x[0-9a-fA-F]{1,2}|[0-7]{1,3}|c.|.)", re.S)


def decode_ansi_c(body: str) -> str:
    """The value of ``$'body'`` (escapes as bash reads them)."""
    def replace(match: re.Match[str]) -> str:
        escape = match.group(1)
        try:
            if escape[0] in "uU":
                return chr(int(escape[1:], 16))
            if escape[0] == "x":
                return chr(int(escape[1:], 16))
            if escape[0] in "01234567":
                return chr(int(escape, 8) & 0xFF)
        except (ValueError, OverflowError):
            return ""
        if escape[0] == "c" and len(escape) == 2:
            return chr(ord(escape[1]) & 0x1F)
        return _ANSI_ESCAPES.get(escape, "\\" + escape)
    return _ANSI.sub(replace, body)


def _brace_expand(text: str) -> list[str]:
    """Bash brace expansion (lists and ranges), capped; a guess for deny lists, not a replacement for bash."""
    pending: list[str] = [text]
    done: list[str] = []
    while pending and len(done) + len(pending) <= _MAX_READINGS:
        current = pending.pop(0)
        match = _BRACE_RANGE.search(current)
        if match is not None:
            start, end, step = match.group(1), match.group(2), match.group(3)
            if start.lstrip("-").isdigit() and end.lstrip("-").isdigit():
                first, last = int(start), int(end)
                items = [str(n) for n in range(first, last + (1 if last >= first else -1),
                                               (1 if last >= first else -1) * max(1, abs(int(step or 1))))]
            elif not start.lstrip("-").isdigit() and not end.lstrip("-").isdigit():
                first, last = ord(start), ord(end)
                items = [chr(n) for n in range(first, last + (1 if last >= first else -1), 1 if last >= first else -1)]
            else:
                items = [match.group(0)]
            pending.extend(current[: match.start()] + item + current[match.end():] for item in items[:_MAX_READINGS])
            continue
        match = _BRACE_LIST.search(current)
        if match is None:
            done.append(current)
            continue
        pending.extend(current[: match.start()] + choice + current[match.end():]
                       for choice in match.group(1).split(","))
    return done + pending


@dataclass
class _Piece:
    value: str | None  # literal value, or None
    reading: str  # what a static reading takes it for
    pattern: str  # unquoted characters as they are, quoted ones as \x01 (for glob and brace detection)
    why: str = ""
    quoted: bool = False


class _Reader:
    """Walks the syntax tree once, collecting commands, redirections and unjudged parts."""

    def __init__(self, line: str, source: bytes) -> None:
        self.line = line
        self.source = source
        self.result = ParsedLine(line)
        self.pipelines = 0
        self.excused: set[tuple[int, int]] = set()  # error nodes read as bash reads them (`<>`, `$()`)

    def unexcused_error(self, root: Any) -> bool:
        stack = [root]
        while stack:
            node = stack.pop()
            if (node.is_error or node.is_missing) and (node.start_byte, node.end_byte) not in self.excused:
                return True
            stack.extend(child for child in node.children if child.has_error or child.is_missing)
        return False

    def text(self, node: Any) -> str:
        return self.source[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def unjudged(self, node: Any | None, reason: str) -> None:
        self.result.unjudged.append(Unjudged(_shown(self.text(node)) if node is not None else "", reason))

    # -- statements ---------------------------------------------------------------------------------------
    def statement(self, node: Any, depth: int, nested: bool, function: str | None, host: int | None,
                  background: bool = False, pipeline: int = -1, position: int = 0) -> None:
        if depth > MAX_DEPTH:
            if not self.result.too_deep:
                self.result.too_deep = True
                self.unjudged(None, f"nested more than {MAX_DEPTH} levels deep")
            return
        kind = node.type
        context: dict[str, Any] = {"nested": nested, "function": function, "host": host}
        if kind == "comment":
            return
        if node.is_error or node.is_missing:
            self.error(node)
            self.children(node, depth + 1, nested=True, function=function, host=host)
            return
        if kind in ("program", "list"):
            self.sequence(node, depth, background=background, **context)
            return
        if kind == "pipeline":
            self.pipelines += 1
            number, place = self.pipelines, 0
            for child in node.children:
                if child.is_named and child.type != "comment":
                    self.statement(child, depth + 1, background=background, pipeline=number, position=place,
                                   **context)
                    place += 1
                elif child.type not in ("|", "|&"):
                    self.other(child, depth + 1, **context)
            return
        if kind == "command":
            self.command(node, [], depth, background=background, pipeline=pipeline, position=position, **context)
            return
        if kind == "redirected_statement":
            body = node.child_by_field_name("body")
            redirects = [child for child in node.children if child.type in _REDIRECTS]
            if body is not None and body.type == "command":
                self.command(body, redirects, depth, background=background, pipeline=pipeline, position=position,
                             **context)
            else:
                first_new = len(self.result.commands)
                if body is not None:
                    self.statement(body, depth + 1, background=background, pipeline=pipeline, position=position,
                                   **context)
                # tree-sitter hangs `a && b > f` on the list; bash redirects only the last command
                last = None
                if body is not None and body.type in ("list", "pipeline"):
                    last = next((command for command in reversed(self.result.commands[first_new:])
                                 if command.nested == nested), None)
                for redirect in redirects:
                    found = self.redirect(redirect, depth + 1, nested, function, host)
                    if found is None:
                        continue
                    self.result.redirects.append(found[0])
                    if last is not None:
                        last.redirects.append(found[0])
                        last.text += " " + found[0].source
                    if found[1] and not nested:
                        self.unjudged(redirect, "words after the redirection of a list")
            for child in node.children:
                if child != body and child.type not in _REDIRECTS:
                    self.other(child, depth + 1, **context)
            return
        if kind == "function_definition":
            name_node = node.child_by_field_name("name")
            name = self.text(name_node) if name_node is not None else None
            if not nested:
                self.unjudged(node, _COMPOUND_REASONS[kind])
            body = node.child_by_field_name("body")
            for child in node.children:
                if child == body:
                    self.statement(child, depth + 1, nested=True, function=name, host=host)
            return
        if kind in _COMPOUND_REASONS:
            if not nested:
                self.unjudged(node, _COMPOUND_REASONS[kind])
            self.children(node, depth + 1, nested=True, function=function, host=host, background=background)
            return
        self.unjudged(node, f"{kind} (not understood)")
        self.other(node, depth, **context)

    def sequence(self, node: Any, depth: int, nested: bool, function: str | None, host: int | None,
                 background: bool) -> None:
        """``a; b && c & d``: statements with the operators between them; `&` sends the one before it off."""
        children = list(node.children)
        for position, child in enumerate(children):
            if not child.is_named:
                if child.type == ";;":  # bash: a syntax error outside `case`
                    self.error(child)
                elif child.type not in ("&&", "||", ";", "\n", "&", "|"):
                    self.other(child, depth + 1, nested, function, host)
                continue
            following = children[position + 1] if position + 1 < len(children) else None
            sent_off = background or (following is not None and following.type == "&")
            if sent_off and not background and not nested:
                self.unjudged(child, "a background job (&)")
            self.statement(child, depth + 1, nested=nested, function=function, host=host, background=sent_off)

    def children(self, node: Any, depth: int, nested: bool, function: str | None, host: int | None,
                 background: bool = False) -> None:
        if node.type in ("program", "list", "compound_statement", "subshell", "do_group", "else_clause",
                         "elif_clause", "case_item"):
            self.sequence_like(node, depth, nested, function, host, background)
            return
        for child in node.children:
            if child.is_named:
                if child.type in _STATEMENTS or child.is_error:
                    self.statement(child, depth + 1, nested=nested, function=function, host=host,
                                   background=background)
                else:
                    self.other(child, depth + 1, nested, function, host)
            elif child.is_missing:
                self.error(child)

    def sequence_like(self, node: Any, depth: int, nested: bool, function: str | None, host: int | None,
                      background: bool) -> None:
        children = list(node.children)
        for position, child in enumerate(children):
            if not child.is_named:
                if child.is_missing:
                    self.error(child)
                continue
            following = children[position + 1] if position + 1 < len(children) else None
            sent_off = background or (following is not None and following.type == "&")
            if child.type in _STATEMENTS or child.is_error:
                self.statement(child, depth + 1, nested=nested, function=function, host=host, background=sent_off)
            else:
                self.children(child, depth + 1, nested, function, host, sent_off) if child.type in (
                    "do_group", "else_clause", "elif_clause", "case_item", "compound_statement") else \
                    self.other(child, depth + 1, nested, function, host)

    def error(self, node: Any) -> None:
        self.result.parse_error = True
        if node.is_missing:
            self.unjudged(None, f"a parse error (missing {node.type!r})")
        else:
            self.unjudged(node, "a parse error")

    def other(self, node: Any, depth: int, nested: bool, function: str | None, host: int | None) -> None:
        """Anything that is not a statement: look inside for substitutions and errors."""
        if depth > MAX_DEPTH:
            if not self.result.too_deep:
                self.result.too_deep = True
                self.unjudged(None, f"nested more than {MAX_DEPTH} levels deep")
            return
        if node.is_error or node.is_missing:
            self.error(node)
        kind = node.type
        if kind in ("command_substitution", "process_substitution"):
            for child in node.children:
                if child.is_named and (child.type in _STATEMENTS or child.is_error):
                    self.statement(child, depth + 1, nested=True, function=function, host=host)
                elif child.is_named:
                    self.other(child, depth + 1, True, function, host)
                elif child.is_missing and not self.empty_substitution(node):
                    self.error(child)
            if self.empty_substitution(node):
                stack = [node]
                while stack:
                    item = stack.pop()
                    if item.is_missing:
                        self.excused.add((item.start_byte, item.end_byte))
                    stack.extend(item.children)
            return
        if kind in _STATEMENTS:
            self.statement(node, depth, nested=True, function=function, host=host)
            return
        for child in node.children:
            if child.is_named or child.is_missing:
                self.other(child, depth + 1, nested, function, host)

    def empty_substitution(self, node: Any) -> bool:
        inner = self.text(node)
        body = inner[2:-1] if inner.startswith("$(") else inner[1:-1]
        return not body.strip()

    # -- commands -----------------------------------------------------------------------------------------
    def command(self, node: Any, outer_redirects: list[Any], depth: int, nested: bool, function: str | None,
                host: int | None, background: bool, pipeline: int, position: int) -> None:
        index = len(self.result.commands)
        command = Command(index=index, text=self.text(node), words=[], nested=nested, function=function,
                          host=host, pipeline=pipeline, position=position, background=background)
        self.result.commands.append(command)
        parts: list[Any] = []
        for child in [*node.children, *outer_redirects]:
            kind = child.type
            if kind == "variable_assignment":
                command.assignments.append(self.text(child))
                if not nested:
                    self.unjudged(child, "a variable assignment before the command")
                self.other(child, depth + 1, True, function, index)
            elif kind in _REDIRECTS:
                found = self.redirect(child, depth + 1, nested, function, index)
                if found is not None:
                    redirect, extra = found
                    command.redirects.append(redirect)
                    self.result.redirects.append(redirect)
                    parts.extend(extra)
            elif kind == "command_name":
                parts.extend(grand for grand in child.children if not grand.is_missing)
            elif kind == "comment":
                continue
            elif child.is_named or child.type in ("$", "``"):
                parts.append(child)
            elif child.is_missing:
                self.error(child)
        if outer_redirects:
            command.text = self.text(node) + " " + " ".join(self.text(r) for r in outer_redirects)
        for group in self.adjacent(parts):
            word = self.word(group, depth + 1, nested, function, index)
            command.words.append(word)
        if not nested:
            for position_in_command, word in enumerate(command.words):
                if word.value is None:
                    where = "the command name" if position_in_command == 0 else "an argument"
                    self.result.unjudged.append(Unjudged(_shown(word.source), f"{word.why} in {where}"))
                elif position_in_command == 0 and (word.quoted or word.glob):
                    why = "a pathname pattern" if word.glob else "quoting or escapes"
                    self.result.unjudged.append(Unjudged(_shown(word.source), f"{why} in the command name"))
                elif word.glob and word.value[:1] in ("*", "?", "[", "-"):
                    self.result.unjudged.append(Unjudged(_shown(word.source),
                                                         "a pathname pattern that can expand to an option"))

    @staticmethod
    def adjacent(parts: list[Any]) -> list[list[Any]]:
        """Nodes with nothing between them are one word (tree-sitter leaves ``$"..."`` as two nodes)."""
        groups: list[list[Any]] = []
        for part in sorted(parts, key=lambda node: node.start_byte):
            if groups and groups[-1][-1].end_byte == part.start_byte:
                groups[-1].append(part)
            else:
                groups.append([part])
        return groups

    def redirect(self, node: Any, depth: int, nested: bool, function: str | None,
                 host: int | None) -> tuple[Redirect, list[Any]] | None:
        """The redirection and the words after its target (tree-sitter puts ``ls > f a b``'s ``a b`` in it)."""
        fd, operator = "", ""
        target_parts: list[Any] = []
        extra: list[Any] = []
        children = list(node.children)
        index = 0
        if node.type == "heredoc_redirect":
            operator = "<<-" if any(child.type == "<<-" for child in children) else "<<"
            body = next((child for child in children if child.type == "heredoc_body"), None)
            if not nested:
                self.unjudged(node, "a heredoc")
            for child in children:
                if child.is_named:
                    self.other(child, depth + 1, True, function, host)
            body_text = self.text(body) if body is not None else ""
            heredoc = Word(body_text, None, (body_text,), "a heredoc")
            return Redirect(operator, fd, heredoc, self.text(node)), []
        while index < len(children):
            child = children[index]
            if child.type == "file_descriptor":
                fd = self.text(child)
            elif not child.is_named and not child.is_missing and not operator:
                operator = child.type
            elif child.is_error and operator == "<" and self.text(child) == ">" and \
                    children[index - 1].end_byte == child.start_byte:
                operator = "<>"  # tree-sitter-bash does not know `<>`: read it as bash does
                self.excused.add((child.start_byte, child.end_byte))
            elif child.is_error or child.is_missing:
                self.error(child)
            elif not target_parts or target_parts[-1].end_byte == child.start_byte:
                if extra:
                    extra.append(child)
                else:
                    target_parts.append(child)
            else:
                extra.append(child)
            index += 1
        if node.type == "herestring_redirect":
            operator = "<<<"
            if not nested:
                self.unjudged(node, "a here-string")
        target = self.word(target_parts, depth + 1, nested, function, host) if target_parts else None
        if target is not None and target.value is None and not nested and node.type != "herestring_redirect":
            self.result.unjudged.append(Unjudged(_shown(self.text(node)), f"{target.why} in a redirection"))
        return Redirect(operator, fd, target, self.text(node)), extra

    def word(self, nodes: list[Any], depth: int, nested: bool, function: str | None, host: int | None) -> Word:
        pieces: list[_Piece] = []
        for node in nodes:
            self.pieces(node, pieces, depth, function, host)
        # `$` before a double-quoted string: a locale string
        merged: list[_Piece] = []
        for piece in pieces:
            if merged and merged[-1].why == "$" and piece.quoted and piece.value is not None:
                merged[-1] = _Piece(None, piece.value, "\x01", "a locale string $\"...\"", True)
                continue
            merged.append(piece)
        source = self.source[nodes[0].start_byte:nodes[-1].end_byte].decode("utf-8", "replace")
        reading = re.sub(r"\$(IFS\b|\{IFS\})", _SPLIT, "".join(piece.reading for piece in merged))
        pattern = "".join(piece.pattern for piece in merged)
        why = next((piece.why for piece in merged if piece.value is None), "")
        if why == "$":
            why = "a bare $"
        quoted = any(piece.quoted for piece in merged)
        value = None if why else "".join(str(piece.value) for piece in merged)
        if value is not None and _BRACE.search(pattern):
            why, value = "a brace expansion", None
        readings = [item for expanded in _brace_expand(reading) for item in expanded.split(_SPLIT)]
        readings = [item for item in readings if item] or ([] if _SPLIT in reading else [reading])
        return Word(source, value, tuple(readings), why, quoted, bool(_GLOB.search(pattern)))

    def pieces(self, node: Any, out: list[_Piece], depth: int, function: str | None, host: int | None) -> None:
        kind = node.type
        text = self.text(node)
        if depth > MAX_DEPTH:
            self.other(node, depth, True, function, host)
            out.append(_Piece(None, text, "\x01", "nesting too deep"))
            return
        if kind == "concatenation":
            for child in node.children:
                self.pieces(child, out, depth + 1, function, host)
            return
        if kind in ("word", "number"):
            value = _unescape(text)
            pattern = re.sub(r"\\.", "\x01", text, flags=re.S)
            if "$" in pattern or "`" in pattern:  # tree-sitter leaves some expansions inside a word
                reading = re.sub(r"\$(IFS\b|\{IFS\})", _SPLIT, text)
                out.append(_Piece(None, reading, pattern, f"the expansion in {_shown(text)}", quoted="\\" in text))
                return
            out.append(_Piece(value, value, pattern, quoted="\\" in text))
            return
        if kind == "raw_string":
            out.append(_Piece(text[1:-1], text[1:-1], "\x01", quoted=True))
            return
        if kind == "string":
            inner = [child for child in node.children if child.is_named]
            if all(child.type == "string_content" for child in inner):
                value = _unescape(text[1:-1], DOUBLE_QUOTE_ESCAPABLE)
                out.append(_Piece(value, value, "\x01", quoted=True))
                return
            parts_read: list[str] = []
            why = ""
            for child in node.children:
                if child.type == "string_content":
                    parts_read.append(_unescape(self.text(child), DOUBLE_QUOTE_ESCAPABLE))
                elif child.is_named:
                    sub: list[_Piece] = []
                    self.pieces(child, sub, depth + 1, function, host)
                    parts_read.extend(piece.reading for piece in sub)
                    why = why or next((piece.why for piece in sub if piece.value is None), "")
            out.append(_Piece(None, "".join(parts_read), "\x01", why or "an expansion", quoted=True))
            return
        if kind == "ansi_c_string":
            out.append(_Piece(None, decode_ansi_c(text[2:-1]), "\x01", "an ANSI-C string $'...'", quoted=True))
            return
        if kind == "translated_string":
            value = _unescape(text[2:-1], DOUBLE_QUOTE_ESCAPABLE)
            out.append(_Piece(None, value, "\x01", "a locale string $\"...\"", quoted=True))
            return
        if kind in ("simple_expansion", "expansion"):
            self.other(node, depth, True, function, host)
            reading = _SPLIT if _IFS.match(text) else text
            out.append(_Piece(None, reading, "\x01", f"the expansion {_shown(text)}"))
            return
        if kind in ("command_substitution", "``"):
            self.other(node, depth, True, function, host)
            empty = kind == "``" or self.empty_substitution(node)
            out.append(_Piece(None, "" if empty else text, "\x01",
                              "an empty command substitution" if empty else "a command substitution"))
            return
        if kind == "process_substitution":
            self.other(node, depth, True, function, host)
            out.append(_Piece(None, text, "\x01", "a process substitution"))
            return
        if kind == "arithmetic_expansion":
            self.other(node, depth, True, function, host)
            out.append(_Piece(None, text, "\x01", "an arithmetic expansion"))
            return
        if kind == "brace_expression":
            out.append(_Piece(None, text, text, "a brace expansion"))
            return
        if kind == "$":
            out.append(_Piece(None, "$", "$", "$"))
            return
        if node.is_error or node.is_missing:
            self.error(node)
        else:
            self.other(node, depth, True, function, host)
        out.append(_Piece(None, text, "\x01", f"{kind} (not understood)"))


# `coproc [NAME] COMPOUND`: the grammar knows no coproc and reads `coproc N { sudo x; }` as one simple command
# `coproc` with arguments `N { sudo x`. The keyword (and NAME) is blanked out so the body parses as what it is.
_COPROC_COMPOUND = re.compile(
    rb"\s+(?:[A-Za-z_][A-Za-z0-9_]*\s*)?(?=[{(]|(?:while|until|for|if|case|select|\[\[)(?:\s|$))")
_MAX_COPROCS = 32


def _coproc_keywords(tree: Any, source: bytes) -> list[tuple[int, int]]:
    """Byte spans of ``coproc [NAME]`` before a compound command (a simple ``coproc cmd`` is a wrapper)."""
    spans: list[tuple[int, int]] = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        name = node.child_by_field_name("name") if node.type == "command" else None
        if name is None or source[name.start_byte:name.end_byte] != b"coproc":
            continue
        after = _COPROC_COMPOUND.match(source, name.end_byte)
        if after is not None:
            spans.append((name.start_byte, after.end()))
    return spans


def parse_line(line: str) -> ParsedLine:
    """Parse ``line``; never raises (a line that is not valid UTF-8 text or not bash is all unjudged)."""
    source = line.encode("utf-8", "surrogatepass")
    parsed, coprocs = source, 0
    tree = _parse_tree(parsed)
    while coprocs < _MAX_COPROCS and (spans := _coproc_keywords(tree, parsed)):
        for start, end in spans:
            parsed = parsed[:start] + b" " * (end - start) + parsed[end:]
        coprocs += len(spans)
        tree = _parse_tree(parsed)
    reader = _Reader(line, source)
    for _ in range(min(coprocs, 1)):
        reader.result.unjudged.append(Unjudged("coproc", "a coprocess (coproc) running in the background"))
    root = tree.root_node
    reader.statement(root, 0, nested=False, function=None, host=None)
    if root.has_error and not reader.result.parse_error and reader.unexcused_error(root):
        reader.result.parse_error = True
        reader.result.unjudged.append(Unjudged("", "a parse error"))
    if "\x00" in line:
        reader.result.unjudged.append(Unjudged("", "a NUL character"))
    return reader.result
