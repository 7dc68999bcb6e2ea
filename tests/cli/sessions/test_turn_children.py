"""TurnControl with sub-agents: a `task` call is no tool to wait for, so one press stops children that only wait
on the model at once; a child running a tool is stopped gracefully; background children are not the turn's."""

from __future__ import annotations

import asyncio
from typing import Any

from amplifier_cli.sessions.interrupts import TurnControl
from amplifier_cli.sessions.subagent_hub import ChildRun, SubAgentHub
from amplifier_core.cancellation import CancellationToken


class _Coordinator:
    def __init__(self, session_id: str, hub: SubAgentHub, tools: dict[str, str]) -> None:
        self.session_id = session_id
        self.cancellation = CancellationToken()
        for call_id, name in tools.items():
            self.cancellation.register_tool_start(call_id, name)
        self.requests: list[bool] = []
        self._hub = hub

    def get_capability(self, name: str) -> Any:
        return self._hub if name == "session.subagents" else None

    async def request_cancel(self, immediate: bool = False) -> None:
        self.requests.append(immediate)


class _Live:
    def __init__(self, coordinator: _Coordinator) -> None:
        self.coordinator = coordinator


def _child(hub: SubAgentHub, session_id: str, tools: dict[str, str], *, background: bool = False) -> _Coordinator:
    coordinator = _Coordinator(session_id, hub, tools)
    hub.add(ChildRun(session_id=session_id, agent="helper", parent_session_id="parent", background=background,
                     live=_Live(coordinator)))
    return coordinator


async def _press(control: TurnControl) -> None:
    control.press()
    await asyncio.gather(*control._pending)


async def test_one_press_stops_children_that_wait_on_the_model_at_once() -> None:
    hub = SubAgentHub()
    parent = _Coordinator("parent", hub, {"t1": "task", "t2": "task"})
    first, second = _child(hub, "c1", {}), _child(hub, "c2", {})
    said: list[str] = []
    control = TurnControl(parent, said.append)
    await _press(control)
    assert parent.requests == [True] and control.stopped  # the whole turn stops now
    assert said == ["Stopping now..."] and first.requests == second.requests == []  # the turn's cancel reaches them


async def test_a_child_running_a_tool_makes_the_press_graceful_and_idle_children_stop_at_once() -> None:
    hub = SubAgentHub()
    parent = _Coordinator("parent", hub, {"t1": "task", "t2": "task"})
    busy, idle = _child(hub, "c1", {"b1": "bash"}), _child(hub, "c2", {})
    background = _child(hub, "c3", {}, background=True)
    said: list[str] = []
    control = TurnControl(parent, said.append)
    await _press(control)
    assert parent.requests == [False] and not control.stopped
    assert idle.requests == [True] and busy.requests == [] and background.requests == []
    assert said[0].startswith("Stopping after the running tool finishes")


async def test_a_child_whose_own_child_runs_a_tool_is_not_stopped_at_once() -> None:
    hub = SubAgentHub()
    parent = _Coordinator("parent", hub, {"t1": "task"})
    middle = _child(hub, "c1", {"t2": "task"})
    grandchild = _Coordinator("g1", hub, {"b1": "bash"})
    hub.add(ChildRun(session_id="g1", agent="checker", parent_session_id="c1", live=_Live(grandchild)))
    control = TurnControl(parent, lambda text: None)
    await _press(control)
    assert parent.requests == [False] and middle.requests == [] and grandchild.requests == []
