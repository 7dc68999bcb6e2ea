"""The app keeps the working indicator out of its own output: approval questions and hook messages are
written with the indicator erased and held back, and the systems still answer everything else as before."""

from __future__ import annotations

import io
from typing import Any

import pytest
from amplifier_module_hooks_streaming_ui.working import WorkingIndicator

from amplifier_cli.ui.working_pause import (
    PausingApproval,
    PausingDisplay,
    bind_pausing_systems,
    stop_indicator,
)
from amplifier_core import ModuleCoordinator
from amplifier_support.capability_names import UI_WORKING_INDICATOR


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Session:
    session_id = "s"
    parent_id = None
    config: dict[str, Any] = {}


class _Asker:
    asks_a_person = True

    def __init__(self, terminal: _Terminal) -> None:
        self.terminal = terminal

    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        self.terminal.write(f"{prompt}?")
        return options[0]


class _Shower:
    def __init__(self, terminal: _Terminal) -> None:
        self.terminal = terminal

    def show_message(self, message: str, level: str = "info", source: str = "hook") -> None:
        self.terminal.write(f"[{level}] {message}\n")


async def test_questions_and_messages_are_written_with_the_indicator_erased(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    terminal = _Terminal()
    indicator = WorkingIndicator(terminal, can_draw=lambda: True, width=lambda: 80)
    approval, display = PausingApproval(_Asker(terminal)), PausingDisplay(_Shower(terminal))
    coordinator = ModuleCoordinator(_Session(), approval_system=approval, display_system=display)
    coordinator.register_capability(UI_WORKING_INDICATOR, indicator)
    bind_pausing_systems(coordinator)
    assert approval.asks_a_person is True  # what the app reads of its approval system still answers

    indicator.draw()
    drawn = terminal.getvalue()
    assert await coordinator.approval_system.request_approval("Run make", ["Allow", "Deny"], 5, "Deny") == "Allow"
    assert terminal.getvalue() == drawn + "\r\x1b[K" + "Run make?"
    indicator.draw()
    drawn = terminal.getvalue()
    coordinator.display_system.show_message("hook says hi", level="warning")
    assert terminal.getvalue() == drawn + "\r\x1b[K" + "[warning] hook says hi\n"
    indicator.draw()
    stop_indicator(coordinator)
    assert terminal.getvalue().endswith("\x1b[K\r\x1b[K")


async def test_without_an_indicator_the_systems_work_as_before() -> None:
    terminal = _Terminal()
    approval = PausingApproval(_Asker(terminal))
    assert await approval.request_approval("Go", ["Allow"], 5, "Allow") == "Allow"
    PausingDisplay(_Shower(terminal)).show_message("plain")
    assert terminal.getvalue() == "Go?[info] plain\n"
