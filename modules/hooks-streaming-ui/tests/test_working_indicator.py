"""The working indicator: drawn only on a terminal the app named, at a line start, erased before any other
output and when the turn ends; its line says what runs, for how long, the tokens and how to interrupt."""

from __future__ import annotations

import io
from typing import Any

import pytest
from amplifier_module_hooks_streaming_ui import mount
from amplifier_module_hooks_streaming_ui.working import WorkingIndicator, fit

from amplifier_core import ModuleCoordinator
from amplifier_support.capability_names import UI_WORKING_INDICATOR

ERASE = "\r\x1b[K"


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)


class _Session:
    session_id = "s"
    parent_id = None
    config: dict[str, Any] = {}


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


async def _mounted(working: Any, **output: Any) -> tuple[ModuleCoordinator, io.StringIO]:
    stream = _Terminal()
    coordinator = ModuleCoordinator(_Session())
    coordinator.register_capability("ui.output", {"stream": stream, "working_stream": working or None, **output})
    await mount(coordinator, {})
    return coordinator, stream


async def test_the_line_names_the_running_tool_the_tokens_and_the_interrupt_key(monkeypatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    coordinator = ModuleCoordinator(_Session())  # answer on stdout, indicator on the terminal's stderr
    coordinator.register_capability("ui.output", {"stream": _Terminal(), "working_stream": _Terminal()})
    await mount(coordinator, {})
    indicator = coordinator.get_capability(UI_WORKING_INDICATOR)
    hooks = coordinator.hooks
    await hooks.emit("execution:start", {"prompt": "x"})
    assert indicator.running
    assert indicator.line().endswith("Working… 0s · Ctrl-C to interrupt")
    await hooks.emit("llm:response", {"usage": {"input_tokens": 10, "output_tokens": 120}})
    await hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {"command": "make"}, "tool_call_id": "c1"})
    assert "Running bash… 0s · 120 tokens · Ctrl-C to interrupt" in indicator.line()
    await hooks.emit("tool:post", {"tool_name": "bash", "tool_call_id": "c1", "result": {"output": "ok"}})
    assert "Working…" in indicator.line()
    await hooks.emit("cancel:requested", {"level": "graceful"})
    assert "Stopping…" in indicator.line()
    await hooks.emit("execution:end", {"status": "cancelled"})
    assert not indicator.running


async def test_it_is_drawn_at_a_line_start_and_erased_before_text_is_printed(monkeypatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    coordinator = ModuleCoordinator(_Session())
    terminal = _Terminal()
    coordinator.register_capability("ui.output", {"stream": terminal, "working_stream": terminal})
    await mount(coordinator, {})
    indicator = coordinator.get_capability(UI_WORKING_INDICATOR)
    await coordinator.hooks.emit("execution:start", {"prompt": "x"})
    indicator.draw()
    drawn = terminal.getvalue()
    assert drawn.startswith("\r") and "Working…" in drawn and drawn.endswith("Ctrl-C to interrupt\x1b[K")
    await coordinator.hooks.emit("content_block:delta", {"block_index": 0, "block_type": "text", "delta": "Hel"})
    assert terminal.getvalue() == drawn + ERASE + "Hel"
    indicator.draw()  # mid-line: drawing now would split the streamed text
    assert terminal.getvalue() == drawn + ERASE + "Hel"
    await coordinator.hooks.emit("content_block:end", {"block_index": 0, "block": {"type": "text", "text": "Hel"}})
    indicator.draw()
    assert terminal.getvalue().endswith("Hel\n\r" + indicator.line() + "\x1b[K")
    await coordinator.hooks.emit("execution:end", {"status": "completed"})
    assert terminal.getvalue().endswith("\x1b[K" + ERASE) and not indicator.running


async def test_a_paused_indicator_is_erased_and_not_drawn(monkeypatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    terminal = _Terminal()
    indicator = WorkingIndicator(terminal, can_draw=lambda: True, width=lambda: 80)
    indicator.draw()
    with indicator.paused():
        assert terminal.getvalue().endswith(ERASE)
        before = terminal.getvalue()
        indicator.draw()
        assert terminal.getvalue() == before
    indicator.draw()
    assert terminal.getvalue().endswith("\x1b[K") and not terminal.getvalue().endswith(ERASE)


async def test_no_indicator_in_a_pipe_nor_where_the_app_did_not_ask_for_one(monkeypatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    coordinator = ModuleCoordinator(_Session())
    coordinator.register_capability("ui.output", {"stream": _Terminal(), "working_stream": io.StringIO()})
    await mount(coordinator, {})
    assert coordinator.get_capability(UI_WORKING_INDICATOR) is None  # a pipe/file: never drawn
    coordinator, _ = await _mounted(working=None)
    assert coordinator.get_capability(UI_WORKING_INDICATOR) is None  # the app named no terminal
    monkeypatch.setenv("TERM", "dumb")
    coordinator = ModuleCoordinator(_Session())
    coordinator.register_capability("ui.output", {"stream": _Terminal(), "working_stream": _Terminal()})
    await mount(coordinator, {})
    assert coordinator.get_capability(UI_WORKING_INDICATOR) is None


async def test_a_sub_agent_erases_its_parents_line_and_holds_it_back_mid_line(monkeypatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    terminal = _Terminal()
    parent = ModuleCoordinator(_Session())
    parent.register_capability("ui.output", {"stream": terminal, "working_stream": terminal})
    await mount(parent, {})
    indicator = parent.get_capability(UI_WORKING_INDICATOR)
    child = ModuleCoordinator(_Session())
    child.register_capability("ui.output", {**parent.get_capability("ui.output"), "indent": 2, "label": "sub"})
    await mount(child, {})
    assert child.get_capability(UI_WORKING_INDICATOR) is None
    indicator.draw()
    drawn = terminal.getvalue()
    await child.hooks.emit("content_block:delta", {"block_index": 0, "block_type": "text", "delta": "child"})
    assert terminal.getvalue() == drawn + ERASE + "  child"
    indicator.draw()  # the child's line is open
    assert terminal.getvalue() == drawn + ERASE + "  child"


def test_a_long_line_is_cut_to_the_terminal_width() -> None:
    assert fit("Running bash… 3s · Ctrl-C to interrupt", 12) == "Running bas…"
    assert fit("short", 12) == "short"


async def test_a_running_tools_progress_is_shown_by_its_name_until_it_finishes(monkeypatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    coordinator = ModuleCoordinator(_Session())
    coordinator.register_capability("ui.output", {"stream": _Terminal(), "working_stream": _Terminal()})
    await mount(coordinator, {})
    indicator = coordinator.get_capability(UI_WORKING_INDICATOR)
    await coordinator.hooks.emit("execution:start", {"prompt": "x"})
    indicator.tool_progress("mcp__web__steps", "step 1 of 3")  # not running: nothing to show it by
    assert "step 1" not in indicator.line()
    await coordinator.hooks.emit("tool:pre", {"tool_name": "mcp__web__steps", "tool_input": {}, "tool_call_id": "c1"})
    indicator.tool_progress("mcp__web__steps", "step 2 of 3")
    assert "Running mcp__web__steps (step 2 of 3)… 0s" in indicator.line()
    await coordinator.hooks.emit("tool:post", {"tool_name": "mcp__web__steps", "tool_call_id": "c1",
                                               "result": {"output": "ok"}})
    await coordinator.hooks.emit("tool:pre", {"tool_name": "mcp__web__steps", "tool_input": {}, "tool_call_id": "c2"})
    assert "Running mcp__web__steps… 0s" in indicator.line()  # the finished call's progress is gone
    await coordinator.hooks.emit("execution:end", {"status": "success"})


async def test_running_sub_agents_are_listed_under_the_line_and_erased_with_it(monkeypatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    coordinator = ModuleCoordinator(_Session())
    terminal = _Terminal()
    children = [{"agent": "reviewer", "elapsed_seconds": 12.4, "current_tool": "grep"},
                {"agent": "writer", "elapsed_seconds": 75, "current_tool": None, "queued": True, "background": True}]
    coordinator.register_capability("subagents.running", lambda: list(children))
    coordinator.register_capability("ui.output", {"stream": terminal, "working_stream": terminal})
    await mount(coordinator, {})
    indicator = coordinator.get_capability(UI_WORKING_INDICATOR)
    await coordinator.hooks.emit("execution:start", {"prompt": "x"})
    indicator.draw()
    drawn = terminal.getvalue()
    assert "\n  ⎿ reviewer · 12s · grep\x1b[K\n  ⎿ writer (background) · 1m 15s · waiting for a slot\x1b[K" in drawn
    assert drawn.endswith("\x1b[2A\r")  # back on the indicator's line
    children.pop()
    indicator.draw()  # one child fewer: the stale line is erased first
    assert terminal.getvalue()[len(drawn):].startswith("\r\x1b[J\r")
    await coordinator.hooks.emit("execution:end", {"status": "completed"})
    assert terminal.getvalue().endswith("\x1b[1A\r\r\x1b[J") and not indicator.running
