"""hooks-streaming-ui renders events as they arrive: text deltas before the block ends, tool lines, thinking
modes, usage, sub-agent indentation, Markdown redraw on a terminal, and colour rules."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from amplifier_module_hooks_streaming_ui import mount

from amplifier_core import ModuleCoordinator
from amplifier_core.module_config import ModuleConfigError


class _Session:
    session_id = "s"
    parent_id = None
    config: dict[str, Any] = {}


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


async def _mounted(config: dict[str, Any] | None = None, **output: Any) -> tuple[ModuleCoordinator, io.StringIO]:
    stream = output.pop("stream", None) or io.StringIO()
    coordinator = ModuleCoordinator(_Session())
    coordinator.register_capability("ui.output", {"stream": stream, **output})
    await mount(coordinator, config or {})
    return coordinator, stream


async def test_text_deltas_are_written_before_the_block_ends() -> None:
    coordinator, stream = await _mounted()
    hooks = coordinator.hooks
    await hooks.emit("content_block:start", {"block_index": 0, "block_type": "text"})
    await hooks.emit("content_block:delta", {"block_index": 0, "block_type": "text", "delta": "Hel"})
    assert stream.getvalue() == "Hel"
    await hooks.emit("content_block:delta", {"block_index": 0, "block_type": "text", "delta": "lo"})
    assert stream.getvalue() == "Hello"
    await hooks.emit("content_block:end", {"block_index": 0, "block_type": "text",
                                           "block": {"type": "text", "text": "Hello"}})
    assert stream.getvalue() == "Hello\n"
    assert coordinator.get_capability("ui.renders_answer") is True


async def test_a_whole_block_without_deltas_is_printed_at_its_end() -> None:
    coordinator, stream = await _mounted()
    await coordinator.hooks.emit("content_block:end", {"block_index": 0, "block": {"type": "text", "text": "All"}})
    assert stream.getvalue() == "All\n"


async def test_answer_text_is_left_to_the_app_when_asked() -> None:
    coordinator, stream = await _mounted(show_answer_text=False)
    await coordinator.hooks.emit("content_block:delta", {"block_index": 0, "block_type": "text", "delta": "x"})
    await coordinator.hooks.emit("content_block:end", {"block_index": 0, "block": {"type": "text", "text": "x"}})
    assert stream.getvalue() == ""
    assert coordinator.get_capability("ui.renders_answer") is None


async def test_tool_call_and_result_lines_are_compact_and_truncated() -> None:
    coordinator, stream = await _mounted({"show_tool_lines": 2})
    await coordinator.hooks.emit("tool:pre", {"tool_name": "write_file",
                                              "tool_input": {"path": "a.txt", "content": "l1\nl2\nl3"}})
    await coordinator.hooks.emit("tool:post", {"tool_name": "write_file",
                                               "tool_result": {"success": True, "output": "one\ntwo\nthree\nfour"}})
    await coordinator.hooks.emit("tool:post", {"tool_name": "bash",
                                               "tool_result": {"success": False, "error": {"message": "boom"}}})
    lines = stream.getvalue().splitlines()
    assert lines[0] == "⏺ write_file(path=a.txt, content=<3 lines, 8 chars>)"
    assert lines[1] == "  ⎿ ✓ write_file: one"
    assert lines[2].strip() == "two" and lines[3].strip() == "… (2 more lines)"
    assert lines[4] == "  ⎿ ✗ bash: boom"


async def test_a_tool_error_shows_the_loops_message() -> None:
    coordinator, stream = await _mounted()
    await coordinator.hooks.emit("tool:error", {"tool_name": "bash",
                                                "error": {"type": "ToolDenied", "msg": "User denied: touch x"}})
    assert stream.getvalue().splitlines() == ["  ⎿ ✗ bash: User denied: touch x"]


@pytest.mark.parametrize(("mode", "expected"), [("stream", "deep thought"), ("collapsed", "12 chars, hidden"),
                                                ("hidden", None)])
async def test_thinking_modes(mode: str, expected: str | None) -> None:
    coordinator, stream = await _mounted({"show_thinking": mode})
    await coordinator.hooks.emit("thinking:delta", {"block_index": 0, "delta": "deep thought"})
    await coordinator.hooks.emit("content_block:end", {"block_index": 0, "block_type": "thinking",
                                                       "block": {"type": "thinking", "thinking": "deep thought"}})
    if expected is None:
        assert stream.getvalue() == ""
    else:
        assert expected in stream.getvalue()


async def test_usage_and_cost_are_summed_per_turn() -> None:
    coordinator, stream = await _mounted()
    for _ in range(2):
        await coordinator.hooks.emit("llm:response", {"usage": {"input_tokens": 1000, "output_tokens": 20},
                                                      "cost_usd": "0.015"})
    await coordinator.hooks.emit("orchestrator:complete", {"status": "success"})
    assert "tokens: in 2,000 · out 40 · $0.03 · 2 calls" in stream.getvalue()
    stream.truncate(0)
    stream.seek(0)
    await coordinator.hooks.emit("orchestrator:complete", {"status": "success"})
    assert stream.getvalue() == ""  # nothing new to report


async def test_sub_agent_output_is_indented() -> None:
    coordinator, stream = await _mounted(indent=4)
    await coordinator.hooks.emit("content_block:delta", {"block_index": 0, "block_type": "text", "delta": "a\nb"})
    await coordinator.hooks.emit("tool:pre", {"tool_name": "read_file", "tool_input": {"path": "x"}})
    assert stream.getvalue().splitlines() == ["    a", "    b", "    ⏺ read_file(path=x)"]


async def test_todo_updates_are_listed_with_status_marks() -> None:
    coordinator, stream = await _mounted()
    await coordinator.hooks.emit("todo:updated", {"todos": [{"content": "plan", "status": "completed"},
                                                            {"content": "build", "status": "in_progress"}]})
    assert "☑ plan" in stream.getvalue() and "◐ build" in stream.getvalue()


async def test_on_a_terminal_a_short_markdown_block_is_redrawn_rendered(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "40")
    coordinator, stream = await _mounted(stream=_Terminal())
    text = "# Title\n\nSome **bold** words"
    await coordinator.hooks.emit("content_block:delta", {"block_index": 0, "block_type": "text", "delta": text})
    await coordinator.hooks.emit("content_block:end", {"block_index": 0, "block": {"type": "text", "text": text}})
    output = stream.getvalue()
    assert output.startswith(text)  # streamed raw first
    assert "\x1b[2A\x1b[J" in output  # cursor back up over the 3 streamed rows, screen cleared below
    assert "**bold**" not in output[len(text):]  # then rendered, without the markup


async def test_on_a_terminal_a_block_taller_than_the_screen_is_not_redrawn(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "10")
    coordinator, stream = await _mounted(stream=_Terminal())
    text = "# Long\n" + "\n".join(f"- item {n}" for n in range(30))
    await coordinator.hooks.emit("content_block:delta", {"block_index": 0, "block_type": "text", "delta": text})
    await coordinator.hooks.emit("content_block:end", {"block_index": 0, "block": {"type": "text", "text": text}})
    assert "\x1b[J" not in stream.getvalue()


_COLOR_CODE = re.compile(r"\x1b\[[0-9;]*?(3[0-8]|9[0-7])(;[0-9]+)*m")


async def test_no_color_on_a_terminal_means_no_colour_codes(monkeypatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    coordinator, stream = await _mounted(stream=_Terminal())
    await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {"command": "ls"}})
    assert "bash(command=ls)" in stream.getvalue()
    assert not _COLOR_CODE.search(stream.getvalue())


async def test_force_color_colours_even_a_pipe(monkeypatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    coordinator, stream = await _mounted()
    await coordinator.hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {"command": "ls"}})
    assert _COLOR_CODE.search(stream.getvalue())


async def test_upstream_nested_ui_config_is_accepted_and_unknown_keys_rejected() -> None:
    coordinator, stream = await _mounted({"ui": {"show_tool_lines": 1, "show_thinking_stream": False}})
    await coordinator.hooks.emit("tool:post", {"tool_name": "t", "tool_result": {"success": True, "output": "a\nb"}})
    assert "… (1 more lines)" in stream.getvalue()
    with pytest.raises(ModuleConfigError, match="did you mean 'show_tool_lines'"):
        await _mounted({"show_tool_line": 3})


async def test_a_trailing_newline_is_not_counted_as_another_line() -> None:
    coordinator, stream = await _mounted()
    await coordinator.hooks.emit("tool:pre", {"tool_name": "write_file",
                                              "tool_input": {"file_path": "n.md", "content": "# N\n\n- a\n"}})
    assert "content=<3 lines, 9 chars>" in stream.getvalue()


async def _stream_block(coordinator: ModuleCoordinator, text: str, between: Any = None) -> None:
    half = len(text) // 2
    await coordinator.hooks.emit("content_block:delta", {"block_index": 0, "block_type": "text", "delta": text[:half]})
    if between is not None:
        between()
    await coordinator.hooks.emit("content_block:delta", {"block_index": 0, "block_type": "text", "delta": text[half:]})
    await coordinator.hooks.emit("content_block:end", {"block_index": 0, "block": {"type": "text", "text": text}})


def _terminal_size(monkeypatch: pytest.MonkeyPatch, columns: int, lines: int) -> None:
    import os

    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
    monkeypatch.setattr(os, "get_terminal_size", lambda *args: os.terminal_size((columns, lines)))


async def test_wide_characters_that_wrap_are_counted_when_moving_back_up(monkeypatch) -> None:
    _terminal_size(monkeypatch, 20, 40)
    coordinator, stream = await _mounted(stream=_Terminal())
    # 12 CJK characters take 24 cells: two rows on a 20-column screen, so the block covers 4 rows
    await _stream_block(coordinator, "# W\n" + "你" * 12 + "\n- **x**")
    assert "\x1b[3A\x1b[J" in stream.getvalue()


async def test_a_wide_character_that_does_not_fit_the_last_column_wraps_early(monkeypatch) -> None:
    _terminal_size(monkeypatch, 20, 40)
    coordinator, stream = await _mounted(stream=_Terminal())
    # 19 narrow cells, then a 2-cell character that goes to the next row, whose 21 cells wrap once more
    await _stream_block(coordinator, "# W\n" + "a" * 19 + "你" + "b" * 19 + "\n- **x**")
    assert "\x1b[4A\x1b[J" in stream.getvalue()


@pytest.mark.parametrize("text", ["# Flag 🇫🇷\n- **x**", "# Family 👨\u200d👩\u200d👧\n- **x**",
                                  "# Warn ⚠\ufe0f\n- **x**"])
async def test_text_whose_width_terminals_disagree_on_is_not_redrawn(monkeypatch, text: str) -> None:
    _terminal_size(monkeypatch, 80, 40)
    coordinator, stream = await _mounted(stream=_Terminal())
    await _stream_block(coordinator, text)
    assert "\x1b[J" not in stream.getvalue()


async def test_a_terminal_resized_while_the_block_streams_is_not_redrawn(monkeypatch) -> None:
    _terminal_size(monkeypatch, 80, 40)
    coordinator, stream = await _mounted(stream=_Terminal())
    await _stream_block(coordinator, "# Title\n\nSome **bold** words " * 3,
                        between=lambda: _terminal_size(monkeypatch, 30, 40))
    assert "\x1b[J" not in stream.getvalue()
    assert stream.getvalue().count("Some **bold** words") == 3  # streamed once, nothing duplicated


async def test_a_dumb_terminal_gets_no_cursor_movement_or_colour_codes(monkeypatch) -> None:
    _terminal_size(monkeypatch, 80, 40)
    monkeypatch.setenv("TERM", "dumb")
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    coordinator, stream = await _mounted(stream=_Terminal())
    await coordinator.hooks.emit("thinking:delta", {"block_index": 0, "delta": "hmm"})
    await _stream_block(coordinator, "# Title\n\nSome **bold** words")
    assert "\x1b" not in stream.getvalue()


async def test_force_color_into_a_pipe_colours_but_never_redraws(monkeypatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    coordinator, stream = await _mounted()
    await _stream_block(coordinator, "# Title\n\nSome **bold** words")
    assert "\x1b[J" not in stream.getvalue() and "A\x1b" not in stream.getvalue()
    assert stream.getvalue().count("Title") == 1  # a log file gets the answer once


@pytest.mark.parametrize("terminal", [True, False])
async def test_control_characters_from_the_model_or_a_tool_are_shown_not_obeyed(monkeypatch, terminal: bool) -> None:
    _terminal_size(monkeypatch, 80, 40)
    monkeypatch.setenv("NO_COLOR", "1")
    coordinator, stream = await _mounted(stream=_Terminal() if terminal else io.StringIO())
    # a title change, a clipboard write (OSC 52) and a carriage return that would hide what came before it
    await _stream_block(coordinator, "# Hi\x1b]0;pwned\x07 there\rX\n- \x1b]52;c;ZXZpbA==\x07**x**")
    await coordinator.hooks.emit("tool:post", {"tool_name": "bash",
                                               "tool_result": {"success": True, "output": "\x1b[2Jcleared"}})
    output = stream.getvalue()
    assert "\x1b]" not in output and "\x07" not in output and "\r" not in output.replace("\r\x1b[", "")
    assert "\x1b[2J" not in output
    assert "pwned" in output and "cleared" in output


async def test_a_multi_line_tool_error_stays_indented_under_its_tool_and_is_cut(monkeypatch) -> None:
    coordinator, stream = await _mounted({"show_tool_lines": 3})
    message = "User denied: Tool: bash\nCommand: rm -rf x\nRisk: high\nline 4\nline 5"
    await coordinator.hooks.emit("tool:error", {"tool_name": "bash", "error": {"type": "denied", "msg": message}})
    lines = stream.getvalue().splitlines()
    assert lines[0] == "  ⎿ ✗ bash: User denied: Tool: bash"
    assert lines[1:] == ["      Command: rm -rf x", "      Risk: high", "      … (2 more lines)"]


async def test_a_retry_erases_the_failed_attempts_text_on_a_terminal(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "40")
    coordinator, stream = await _mounted(stream=_Terminal())
    await coordinator.hooks.emit("content_block:delta", {"block_index": 0, "block_type": "text",
                                                         "delta": "partial\nanswer that"})
    await coordinator.hooks.emit("provider:retry", {"attempt": 1, "delay": 0.5, "message": "stream cut"})
    erased = stream.getvalue()
    assert erased.startswith("partial\nanswer that\r\x1b[1A\x1b[J")  # back over both rows, cleared below
    assert "retrying in 0.5s (stream cut)" in erased
    await coordinator.hooks.emit("content_block:delta", {"block_index": 0, "block_type": "text", "delta": "Done."})
    await coordinator.hooks.emit("content_block:end", {"block_index": 0, "block": {"type": "text", "text": "Done."}})
    assert stream.getvalue().endswith("Done.\n")


async def test_a_retry_marks_the_failed_attempts_text_where_it_cannot_erase() -> None:
    coordinator, stream = await _mounted()  # not a terminal: nothing can be taken back
    await coordinator.hooks.emit("content_block:delta", {"block_index": 0, "block_type": "text", "delta": "half"})
    await coordinator.hooks.emit("provider:retry", {"attempt": 1, "delay": 1, "message": "overloaded"})
    lines = stream.getvalue().splitlines()
    assert lines[:2] == ["half", "(the text above came from a failed attempt: discarded)"]
    await coordinator.hooks.emit("provider:retry", {"attempt": 2, "delay": 1, "message": "overloaded"})
    assert stream.getvalue().count("discarded") == 1  # nothing streamed since: nothing to mark


async def test_an_automatic_compaction_prints_its_receipt_in_one_line() -> None:
    coordinator, stream = await _mounted()
    await coordinator.hooks.emit("context:post_compact", {
        "messages_before": 48, "messages_after": 12, "messages_omitted": 36, "tokens_before": 150_210,
        "tokens_after": 80_400, "budget": 160_000})
    assert stream.getvalue() == ("context compacted (automatic): 48 → 12 messages, ~150,210 → ~80,400 tokens; "
                                 "36 earlier messages left out of requests (the transcript keeps them)\n")


async def test_a_manual_compaction_is_left_to_the_command_that_made_it() -> None:
    coordinator, stream = await _mounted()
    await coordinator.hooks.emit("context:post_compact", {"messages_before": 4, "messages_after": 1,
                                                          "trigger": "manual"})
    assert stream.getvalue() == ""


async def test_a_call_an_earlier_hook_blocked_shows_the_call_and_the_reason() -> None:
    coordinator, stream = await _mounted()

    async def deny(event: str, data: dict[str, Any]) -> Any:
        from amplifier_core import HookResult

        return HookResult(action="deny", reason="rm is not allowed here")

    coordinator.hooks.register("tool:pre", deny, priority=-10)
    call = {"tool_name": "bash", "tool_input": {"command": "rm -rf build"}, "tool_call_id": "call-1"}
    assert (await coordinator.hooks.emit("tool:pre", call)).action == "deny"
    assert stream.getvalue() == ""  # the display hook never saw the call: the deny stopped the chain
    denied = {"type": "ToolDenied", "msg": "rm is not allowed here"}
    await coordinator.hooks.emit("tool:error", {**call, "error": denied})
    assert stream.getvalue().splitlines() == ["⏺ bash(command=rm -rf build)", "  ⎿ ✗ bash: rm is not allowed here"]


async def test_a_failed_call_already_shown_is_not_shown_twice() -> None:
    coordinator, stream = await _mounted()
    call = {"tool_name": "bash", "tool_input": {"command": "false"}, "tool_call_id": "call-2"}
    await coordinator.hooks.emit("tool:pre", call)
    await coordinator.hooks.emit("tool:error", {**call, "error": {"type": "X", "msg": "exit 1"}})
    assert stream.getvalue().splitlines() == ["⏺ bash(command=false)", "  ⎿ ✗ bash: exit 1"]
