"""The prompt: Enter sends, Alt-Enter / Ctrl-J add a line, pasted text keeps its newlines (bracketed
paste), history per project with Ctrl-R search, completion of slash commands, `@path`s and `@server:uri` MCP
resources."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import is_searching
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import History
from prompt_toolkit.key_binding import KeyBindings

from .history_file import open_history

__all__ = ["PROMPT", "ReplCompleter", "build_prompt_session", "history_path", "input_bindings", "open_history"]

PROMPT = "❯ "


class ReplCompleter(Completer):
    """Slash commands (with their descriptions) at the start of the line; files and MCP resources after `@`."""

    def __init__(self, commands: list[tuple[str, str]], cwd: Path) -> None:
        self.commands = commands
        self.extra_commands: list[tuple[str, str]] = []  # the session's own (MCP prompts), replaced per session
        self.cwd = cwd
        self.resource_source: Any = None  # the session's coordinator, once open (sessions/mcp_mentions)

    def set_resource_source(self, coordinator: Any) -> None:
        self.resource_source = coordinator

    def set_extra_commands(self, commands: list[tuple[str, str]]) -> None:
        self.extra_commands = list(commands)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        before = document.text_before_cursor
        if before.startswith("/") and " " not in before:
            for name, description in [*self.commands, *self.extra_commands]:
                if name.startswith(before):
                    yield Completion(name, start_position=-len(before), display_meta=description)
            return
        word = document.get_word_before_cursor(WORD=True)
        if word.startswith("@") and len(word) > 1:
            yield from self._resources(word[1:])
            yield from self._paths(word[1:])

    def _resources(self, typed: str) -> Iterable[Completion]:
        """`@server:uri` of the session's MCP resources (and templates, whose {placeholders} the user fills in)."""
        from ...sessions.mcp_mentions import mention_choices

        for choice, description in mention_choices(self.resource_source):
            if choice.startswith(typed):
                yield Completion(choice, start_position=-len(typed), display_meta=description)

    def _paths(self, typed: str) -> Iterable[Completion]:
        folder, _, prefix = typed.rpartition("/")
        base = (self.cwd / os.path.expanduser(folder)) if folder else self.cwd
        try:
            entries = sorted(base.iterdir(), key=lambda entry: entry.name)
        except OSError:
            return
        for entry in entries[:200]:
            if entry.name.startswith(prefix) and (prefix.startswith(".") or not entry.name.startswith(".")):
                shown = entry.name + ("/" if entry.is_dir() else "")
                yield Completion(shown, start_position=-len(prefix))


def history_path(data_dir: Path, project: Path) -> Path:
    """One history file per project, in the data dir (never inside the project)."""
    digest = hashlib.sha256(os.fsencode(project)).hexdigest()[:16]  # a name that is not UTF-8 too
    return data_dir / "history" / f"{digest}.txt"


def input_bindings(toggle_mode: Callable[[], str] | None = None) -> KeyBindings:
    bindings = KeyBindings()

    if toggle_mode is not None:
        @bindings.add("s-tab")  # Shift-Tab: plan mode on/off, as in Claude Code
        def _toggle_mode(event: Any) -> None:
            from .output import print_above_prompt

            print_above_prompt(event.app, toggle_mode(), "ok")

    @bindings.add("enter", filter=~is_searching)  # while searching (Ctrl-R), Enter takes the found entry
    def _submit(event: Any) -> None:
        event.current_buffer.validate_and_handle()

    @bindings.add("c-c", filter=~is_searching)  # while searching, Ctrl-C ends the search
    def _clear(event: Any) -> None:
        """Clear the line where it is. Leaving the prompt for a new one (prompt_toolkit's way) would open a gap
        with the terminal back in cooked mode, where a typed-ahead Enter turns into Ctrl-J: a new line, not sent."""
        event.current_buffer.reset()

    @bindings.add("c-j")
    @bindings.add("escape", "enter")
    def _newline(event: Any) -> None:
        event.current_buffer.insert_text("\n")

    return bindings


def build_prompt_session(history: History, completer: Completer, *, mode: Callable[[], str] | None = None,
                         toggle_mode: Callable[[], str] | None = None) -> PromptSession[str]:
    def message() -> StyleAndTextTuples:
        if mode is not None and mode() == "plan":
            return [("ansiyellow bold", "plan "), ("ansigreen bold", PROMPT)]
        return [("ansigreen bold", PROMPT)]

    return PromptSession(
        message=message,
        multiline=True,
        key_bindings=input_bindings(toggle_mode),
        history=history,
        completer=completer,
        complete_while_typing=True,
        enable_history_search=False,  # Up walks the history; Ctrl-R searches it
        prompt_continuation=lambda width, line_number, soft_wrap: "",  # copy/paste gets the text only
        reserve_space_for_menu=4,
    )
