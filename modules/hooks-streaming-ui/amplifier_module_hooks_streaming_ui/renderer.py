"""Renders session events for a person: assistant text token by token, thinking, tool lines, usage.

Text deltas go straight to the stream as they arrive. When a text block ends, a terminal that still shows
all of it gets it redrawn once as Markdown; text taller than the screen is left as streamed, so nothing
in the scrollback is lost and nothing flickers while tokens arrive. The redraw moves the cursor up by the
rows the block took, counted in terminal cells (wide characters, wrapping); when that count could be wrong
(the terminal was resized, or characters terminals size differently) the text is left as streamed instead.

Control characters in model or tool text are shown as symbols, never sent to the terminal as commands.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, TextIO

from rich.cells import get_character_cell_size

from amplifier_core import HookResult

from .formatting import compact_arguments, first_lines, format_cost, result_text, usage_line
from .working import SubAgentIndicator, WorkingIndicator

_MARKDOWN_HINTS = ("#", "*", "`", "- ", "|", "1. ", "> ", "_")
_DIM, _RESET = "\x1b[2m", "\x1b[0m"
# Characters whose width terminals disagree on (joined emoji, flags, presentation selectors, skin tones).
_UNSURE_WIDTH = frozenset("\u200d\ufe0e\ufe0f") | frozenset(chr(code) for code in range(0x1F1E6, 0x1F200)) \
    | frozenset(chr(code) for code in range(0x1F3FB, 0x1F400))
# C0 controls (but newline and tab), DEL and C1 controls -> visible symbols (U+2400 block, or U+FFFD).
_SHOW_CONTROLS = {code: 0x2400 + code for code in range(32) if code not in (9, 10)} | {0x7F: 0x2421} \
    | {code: 0xFFFD for code in range(0x80, 0xA0)}


def shown(text: str) -> str:
    """``text`` with control characters made visible, so output cannot move the cursor or reprogram the
    terminal (title, clipboard, colours)."""
    return text.translate(_SHOW_CONTROLS)


@dataclass
class UISettings:
    stream: TextIO
    show_answer_text: bool = True
    show_thinking: str = "stream"  # stream | collapsed | hidden
    show_tool_lines: int = 5
    show_token_usage: bool = True
    render_markdown: bool = True
    indent: int = 0
    label: str | None = None
    color: bool | None = None
    working_stream: TextIO | None = None  # where the working indicator goes (None: no indicator)
    parent_indicator: Any = None  # a sub-agent's: the parent session's indicator on the same terminal


@dataclass
class _TextBlock:
    text: str = ""
    rows: int = 0  # screen rows used so far (wrapping counted)
    column: int = 0  # cells used on the current row
    width: int = 0  # terminal width when the block started
    unsure: bool = False  # holds characters whose width is terminal-dependent: never redrawn
    streamed: bool = False


@dataclass
class _TurnUsage:
    usage: dict[str, int] = field(default_factory=dict)
    cost: Any = None
    requests: int = 0


class StreamingRenderer:
    def __init__(self, settings: UISettings) -> None:
        from amplifier_support.consoles import text_console

        self.settings = settings
        # a terminal wraps at its width; a pipe or log file gets whole lines
        self.console = text_console(settings.stream, highlight=False)
        if settings.color is False:
            self.console.no_color = True
        self._blocks: dict[int, _TextBlock] = {}
        self._thinking: dict[int, str] = {}
        self._thinking_open = False
        self._at_line_start = True
        self._turn = _TurnUsage()
        self._prefix = " " * settings.indent
        self._shown_calls: set[str] = set()
        self.indicator: WorkingIndicator | SubAgentIndicator
        if isinstance(settings.parent_indicator, WorkingIndicator):
            self.indicator = SubAgentIndicator(settings.parent_indicator, lambda: self._at_line_start)
        else:
            self.indicator = WorkingIndicator(settings.working_stream if not settings.indent else None,
                                              can_draw=lambda: self._at_line_start,
                                              width=lambda: self.console.width, color=self._colored)

    # -- low-level output ----------------------------------------------------------------------------
    @property
    def _terminal(self) -> bool:
        return self.console.is_terminal

    @property
    def _cursor_moves(self) -> bool:
        """The stream really is a terminal that understands cursor movement (FORCE_COLOR into a pipe or
        a log file is not: a redraw there would leave the answer twice)."""
        isatty = getattr(self.settings.stream, "isatty", None)
        try:
            tty = bool(isatty is not None and isatty())
        except ValueError:
            tty = False
        return tty and os.environ.get("TERM", "").lower() not in ("dumb", "unknown")

    @property
    def _colored(self) -> bool:
        return (self._terminal and self.console.color_system is not None and not self.console.no_color
                and self.settings.color is not False)

    def _raw(self, text: str) -> None:
        if self._prefix:
            text = text.replace("\n", "\n" + self._prefix)
            if self._at_line_start:
                text = self._prefix + text
        self.settings.stream.write(text)
        self.settings.stream.flush()
        if text:
            self._at_line_start = text.endswith("\n")

    def _line(self, text: str, style: str | None = None) -> None:
        if not self._at_line_start:
            self.settings.stream.write("\n")
        self.console.print(self._prefix + shown(text), style=style, markup=False, highlight=False)
        self._at_line_start = True

    # -- assistant text --------------------------------------------------------------------------------
    def _track(self, block: _TextBlock, delta: str) -> None:
        """Count the screen rows ``delta`` moves through, as a terminal of the block's width wraps it."""
        width = block.width
        for char in delta:
            if char == "\n":
                block.rows += 1
                block.column = 0
            elif char == "\t":
                block.column = min((block.column // 8 + 1) * 8, max(width - 1, block.column))
            elif char in _UNSURE_WIDTH:
                block.unsure = True
            else:
                cells = get_character_cell_size(char)
                if block.column + cells > width:  # does not fit: the terminal wraps before it
                    block.rows += 1
                    block.column = cells
                else:
                    block.column += cells

    def _screen_width(self) -> int:
        return max(self.console.width - len(self._prefix), 10)

    def text_delta(self, index: int, delta: str) -> None:
        block = self._blocks.setdefault(index, _TextBlock())
        if not block.streamed:
            self._close_thinking()
            if not self._at_line_start:
                self._raw("\n")
            block.width = self._screen_width()
        block.streamed = True
        delta = shown(delta)
        block.text += delta
        self._track(block, delta)
        self._raw(delta)

    def text_end(self, index: int, text: str | None) -> None:
        block = self._blocks.pop(index, None)
        if block is None or not block.streamed:
            if text:
                self._close_thinking()
                self._print_markdown(text)
            return
        final = text if text is not None else block.text
        rows_used = block.rows + 1
        if (self.settings.render_markdown and self._cursor_moves and not self._prefix and not block.unsure
                and block.width == self._screen_width() and rows_used < self.console.height - 1
                and any(hint in final for hint in _MARKDOWN_HINTS)):
            # Everything streamed is still on screen: replace it with the rendered form.
            self.settings.stream.write(f"\r\x1b[{block.rows}A\x1b[J" if block.rows else "\r\x1b[J")
            self._at_line_start = True
            self._print_markdown(final)
        elif not self._at_line_start:
            self._raw("\n")

    def discard_attempt(self) -> None:
        """A provider call is retried: the text its failed attempt streamed is not part of the answer (the rule
        of the app's docs/EVENTS.md). Erased when it is all still on screen, else marked as discarded."""
        blocks = [block for block in self._blocks.values() if block.streamed]
        self._blocks.clear()
        self._thinking.clear()
        self._close_thinking()
        if not blocks:
            return
        block = blocks[0]
        if (len(blocks) == 1 and self._cursor_moves and not self._prefix and not block.unsure
                and block.width == self._screen_width() and block.rows + 1 < self.console.height - 1):
            self.settings.stream.write(f"\r\x1b[{block.rows}A\x1b[J" if block.rows else "\r\x1b[J")
            self._at_line_start = True
            return
        self._line("(the text above came from a failed attempt: discarded)", style="dim")

    def _print_markdown(self, text: str) -> None:
        if self.settings.render_markdown and self._terminal and not self._prefix:
            from rich.markdown import Markdown

            self.console.print(Markdown(shown(text)))
            self._at_line_start = True
        else:
            text = shown(text)
            self._raw(text if text.endswith("\n") else text + "\n")

    # -- thinking ------------------------------------------------------------------------------------------
    def thinking_delta(self, index: int, delta: str) -> None:
        self._thinking[index] = self._thinking.get(index, "") + delta
        if self.settings.show_thinking != "stream":
            return
        if not self._thinking_open:
            self._line("thinking…", style="dim italic")
            self._thinking_open = True
            if self._colored:
                self.settings.stream.write(_DIM)
        self._raw(shown(delta))

    def thinking_end(self, index: int, text: str | None) -> None:
        streamed = self._thinking.pop(index, "")
        full = text or streamed
        if self.settings.show_thinking == "collapsed" and full:
            self._line(f"thinking… ({len(full):,} chars, hidden)", style="dim italic")
        elif self.settings.show_thinking == "stream" and full and not streamed:
            self._line("thinking…", style="dim italic")
            self._line(full, style="dim")
        self._close_thinking()

    def _close_thinking(self) -> None:
        if self._thinking_open:
            if self._colored:
                self.settings.stream.write(_RESET)
            if not self._at_line_start:
                self._raw("\n")
            self._thinking_open = False

    # -- tools ----------------------------------------------------------------------------------------------
    def tool_call(self, name: str, arguments: Any, call_id: str | None = None) -> None:
        self._close_thinking()
        if call_id:
            self._shown_calls.add(call_id)
        self._line(f"⏺ {name}({compact_arguments(arguments)})", style="bold cyan")

    def tool_result(self, name: str, result: Any, call_id: str | None = None) -> None:
        if call_id:
            self._shown_calls.discard(call_id)
        success, text = result_text(result)
        mark = "✓" if success else "✗"
        lines = first_lines(text, self.settings.show_tool_lines) or ["(no output)"]
        self._line(f"  ⎿ {mark} {name}: {lines[0]}", style="green" if success else "red")
        for line in lines[1:]:
            self._line(f"      {line}", style="dim")

    def tool_error(self, name: str, error: Any, call_id: str | None = None, arguments: Any = None) -> None:
        """The error of a call; a call whose tool:pre this hook never saw (an earlier hook denied it) is shown
        first, so the user sees what was blocked and not only why."""
        if call_id and call_id not in self._shown_calls:
            self.tool_call(name, arguments if arguments is not None else {}, call_id)
        if call_id:
            self._shown_calls.discard(call_id)
        # loops send {"type", "msg"} (upstream's tool:error shape); accept "message" too
        message = (error.get("msg") or error.get("message") or error.get("type")) if isinstance(error, dict) \
            else str(error)
        lines = first_lines(str(message), self.settings.show_tool_lines) or [""]
        self._line(f"  ⎿ ✗ {name}: {lines[0]}", style="red")
        for line in lines[1:]:
            self._line(f"      {line}", style="dim")

    def todos(self, items: list[dict[str, Any]]) -> None:
        marks = {"pending": "☐", "in_progress": "◐", "completed": "☑"}
        self._line("todo:", style="bold")
        for item in items:
            status = item.get("status", "pending")
            self._line(f"  {marks.get(status, '☐')} {item.get('content', '')}",
                       style="dim" if status == "completed" else None)

    def notice(self, text: str, style: str = "yellow") -> None:
        self._line(text, style=style)

    # -- usage ----------------------------------------------------------------------------------------------
    def add_usage(self, usage: dict[str, Any], cost: Any) -> None:
        self._turn.requests += 1
        for key in ("input_tokens", "output_tokens", "cache_read_tokens"):
            self._turn.usage[key] = self._turn.usage.get(key, 0) + int(usage.get(key) or 0)
        if cost is not None and format_cost(cost) is not None:
            from decimal import Decimal

            self._turn.cost = (Decimal(str(self._turn.cost)) if self._turn.cost is not None else Decimal(0)) + \
                Decimal(str(cost))

    def turn_complete(self) -> None:
        self._close_thinking()
        if self.settings.show_token_usage and self._turn.requests:
            self._line(usage_line(self._turn.usage, self._turn.cost, self._turn.requests), style="dim")
        self._turn = _TurnUsage()


def make_handlers(renderer: StreamingRenderer) -> dict[str, Any]:
    """Hook handlers for each event the renderer shows. Each one first erases the working indicator, so
    nothing is printed into its line; it is drawn again below at the next tick."""
    settings = renderer.settings
    indicator = renderer.indicator

    async def on_delta(event: str, data: dict[str, Any]) -> HookResult:
        if data.get("block_type", "text") == "text" and data.get("delta"):
            indicator.streamed(len(data["delta"]))
            if settings.show_answer_text:
                renderer.text_delta(int(data.get("block_index", 0)), data["delta"])
        return HookResult()

    async def on_block_end(event: str, data: dict[str, Any]) -> HookResult:
        block = data.get("block") or {}
        kind = data.get("block_type") or (block.get("type") if isinstance(block, dict) else None)
        index = int(data.get("block_index", 0))
        if kind == "text" and settings.show_answer_text:
            renderer.text_end(index, block.get("text") if isinstance(block, dict) else None)
        elif kind == "thinking" and settings.show_thinking != "hidden":
            renderer.thinking_end(index, block.get("thinking") if isinstance(block, dict) else None)
        return HookResult()

    async def on_thinking(event: str, data: dict[str, Any]) -> HookResult:
        if data.get("delta"):
            indicator.streamed(len(data["delta"]))
            if settings.show_thinking != "hidden":
                renderer.thinking_delta(int(data.get("block_index", 0)), data["delta"])
        return HookResult()

    async def on_tool_pre(event: str, data: dict[str, Any]) -> HookResult:
        call_id = _call_id(data)
        renderer.tool_call(str(data.get("tool_name")), data.get("tool_input"), call_id)
        indicator.tool_started(call_id or str(data.get("tool_name")), str(data.get("tool_name")))
        return HookResult()

    async def on_tool_post(event: str, data: dict[str, Any]) -> HookResult:
        call_id = _call_id(data)
        indicator.tool_finished(call_id or str(data.get("tool_name")))
        renderer.tool_result(str(data.get("tool_name")), data.get("tool_result", data.get("result")), call_id)
        return HookResult()

    async def on_tool_error(event: str, data: dict[str, Any]) -> HookResult:
        call_id = _call_id(data)
        indicator.tool_finished(call_id or str(data.get("tool_name")))
        renderer.tool_error(str(data.get("tool_name")), data.get("error"), call_id, data.get("tool_input"))
        return HookResult()

    async def on_llm_response(event: str, data: dict[str, Any]) -> HookResult:
        usage = data.get("usage") or {}
        indicator.response(int(usage.get("output_tokens") or 0) if isinstance(usage, dict) else 0)
        renderer.add_usage(usage, data.get("cost_usd"))
        return HookResult()

    async def on_complete(event: str, data: dict[str, Any]) -> HookResult:
        indicator.stop()
        renderer.turn_complete()
        return HookResult()

    async def on_todos(event: str, data: dict[str, Any]) -> HookResult:
        renderer.todos(list(data.get("todos") or []))
        return HookResult()

    async def on_retry(event: str, data: dict[str, Any]) -> HookResult:
        delay = data.get("delay")
        wait = f" in {float(delay):.1f}s" if isinstance(delay, int | float) else ""
        renderer.discard_attempt()
        renderer.notice(f"retrying{wait} ({data.get('message') or data.get('error_type') or 'provider error'})")
        return HookResult()

    async def on_compacted(event: str, data: dict[str, Any]) -> HookResult:
        from amplifier_support.compaction_receipt import receipt_line

        if data.get("trigger") != "manual":  # /compact prints its own, longer receipt
            renderer.notice(receipt_line(data), style="dim")
        return HookResult()

    async def on_execution_start(event: str, data: dict[str, Any]) -> HookResult:
        indicator.start()
        return HookResult()

    async def on_execution_end(event: str, data: dict[str, Any]) -> HookResult:
        indicator.stop()
        return HookResult()

    async def on_cancel(event: str, data: dict[str, Any]) -> HookResult:
        indicator.stopping()
        return HookResult()

    handlers = {
        "content_block:delta": on_delta,
        "content_block:end": on_block_end,
        "thinking:delta": on_thinking,
        "tool:pre": on_tool_pre,
        "tool:post": on_tool_post,
        "tool:error": on_tool_error,
        "llm:response": on_llm_response,
        "orchestrator:complete": on_complete,
        "todo:updated": on_todos,
        "provider:retry": on_retry,
        "context:post_compact": on_compacted,
        "execution:start": on_execution_start,
        "execution:end": on_execution_end,
        "cancel:requested": on_cancel,
    }
    return {event: _erasing_first(indicator, handler) for event, handler in handlers.items()}


def _call_id(data: dict[str, Any]) -> str | None:
    call_id = data.get("tool_call_id")
    return str(call_id) if call_id else None


def _erasing_first(indicator: WorkingIndicator | SubAgentIndicator, handler: Any) -> Any:
    async def erasing(event: str, data: dict[str, Any]) -> HookResult:
        indicator.clear()
        return await handler(event, data)

    erasing.__name__ = getattr(handler, "__name__", "handler")
    return erasing
