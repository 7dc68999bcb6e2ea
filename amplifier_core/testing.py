"""Test doubles for module authors: a coordinator that records what was mounted, mock tools, context,
provider and orchestrator, an event recorder, and a polling ``wait_for``.

``unittest.mock`` is imported only when a mock is built, so importing this module (which the package's top
level does) stays cheap.
"""

from __future__ import annotations

import asyncio
import copy
import time
from collections.abc import Callable
from typing import Any

from .message_models import ChatRequest, ChatResponse, TextBlock, ToolCall
from .models import HookResult, ModelInfo, ProviderInfo, ToolResult
from .recording_coordinator import HookRegistration as HookRegistration  # re-exported: tests import it here
from .recording_coordinator import RecordingCoordinator, stand_in_plan
from .recording_coordinator import RecordingHookRegistry as RecordingHookRegistry


class MockApprovalSystem:
    """Answers every approval request with ``answer`` and records the requests."""

    def __init__(self, answer: str = "Allow") -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []

    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        self.requests.append({"prompt": prompt, "options": options, "timeout": timeout, "default": default})
        return self.answer


class MockDisplaySystem:
    """Records ``show_message`` calls (a sync call, as in the DisplaySystem protocol)."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def show_message(self, message: str, level: str = "info", source: str = "hook") -> None:
        self.messages.append({"message": message, "level": level, "source": source})


class MockCoordinator(RecordingCoordinator):
    """A RecordingCoordinator over a real (never initialized) session, built with no arguments.

    Records ``mount_history``/``unmount_history`` and hook registrations. ``session_config`` entries are merged
    into the plan's ``session`` section (e.g. ``{"injection_size_limit": 100}``).
    """

    __test__ = False  # not a pytest test class despite the TestCoordinator alias

    def __init__(
        self,
        session: Any = None,
        approval_system: Any = None,
        display_system: Any = None,
        *,
        session_config: dict[str, Any] | None = None,
    ) -> None:
        approval_system = approval_system if approval_system is not None else MockApprovalSystem()
        display_system = display_system if display_system is not None else MockDisplaySystem()
        if session is None:
            from .session import AmplifierSession

            session = AmplifierSession(stand_in_plan(session_config), session_id="test-session",
                                       approval_system=approval_system, display_system=display_system)
        super().__init__(session, approval_system, display_system)


TestCoordinator = MockCoordinator


class MockTool:
    """A tool whose ``execute`` is an AsyncMock returning ``ToolResult(success=True, output=output)``.

    ``description=``, ``return_value=`` and ``last_input`` are the spellings of the contract docs; a
    ``ToolResult`` given as ``return_value`` is returned as it is (a failure stays a failure)."""

    __test__ = False

    def __init__(self, name: str = "mock_tool", output: Any = "Success", *, description: str | None = None,
                 return_value: Any = None) -> None:
        from unittest.mock import AsyncMock

        self.name = name
        self.description = description if description is not None else f"Mock tool: {name}"
        self.output = return_value if return_value is not None else output
        self.input_schema: dict[str, Any] = {"type": "object", "properties": {}}
        self.call_count = 0
        self.last_input: dict[str, Any] | None = None
        self.execute = AsyncMock(side_effect=self._execute)

    async def _execute(self, input: dict[str, Any]) -> ToolResult:
        self.call_count += 1
        self.last_input = input
        if isinstance(self.output, ToolResult):
            return self.output
        return ToolResult(success=True, output=self.output)


class MockContextManager:
    """An in-memory context whose methods are AsyncMocks (so calls can be asserted) over real behaviour."""

    def __init__(self, messages: list[dict[str, Any]] | None = None) -> None:
        from unittest.mock import AsyncMock

        # the caller's list itself, as in 2.0.2: a test can hand one in and watch it fill
        self.messages: list[dict[str, Any]] = messages or []
        self.add_message = AsyncMock(side_effect=self._add_message)
        self.get_messages = AsyncMock(side_effect=self._get_messages)
        self.get_messages_for_request = AsyncMock(side_effect=self._get_messages_for_request)
        self.set_messages = AsyncMock(side_effect=self._set_messages)
        self.clear = AsyncMock(side_effect=self._clear)
        # compaction internals, as AsyncMocks (2.0.2): never due, and assertable if an orchestrator calls them
        self._should_compact = AsyncMock(return_value=False)
        self._compact_internal = AsyncMock(return_value=None)

    async def _add_message(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    async def _get_messages(self) -> list[dict[str, Any]]:
        return self.messages

    async def _get_messages_for_request(self, token_budget: int | None = None,
                                        provider: Any | None = None) -> list[dict[str, Any]]:
        return list(self.messages)

    async def _set_messages(self, messages: list[dict[str, Any]]) -> None:
        self.messages = list(messages)

    async def _clear(self) -> None:
        self.messages.clear()


class EventRecorder:
    """Stands in for a HookRegistry in orchestrator tests: records every emitted event with a copy of its data."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    async def emit(self, event: str, data: dict[str, Any]) -> HookResult:
        self.events.append((event, copy.copy(data)))
        return HookResult(action="continue")  # 2.0.2's: no data echoed back, so loops keep their own

    async def record(self, event: str, data: dict[str, Any]) -> HookResult:
        return await self.emit(event, data)

    async def emit_and_collect(self, event: str, data: dict[str, Any], timeout: float = 1.0) -> list[Any]:
        self.events.append((event, copy.copy(data)))
        return []

    def clear(self) -> None:
        self.events.clear()

    def get_events(self, event_type: str | None = None) -> list[tuple[str, dict[str, Any]]]:
        return [item for item in self.events if event_type is None or item[0] == event_type]


class ScriptedOrchestrator:
    """Returns ``responses`` in order ("DONE" once they run out), recording the turn in the context."""

    def __init__(self, responses: list[str]) -> None:
        self.responses = list(responses)
        self.call_count = 0

    async def execute(self, prompt: str, context: Any, providers: dict[str, Any], tools: dict[str, Any],
                      hooks: Any, **kwargs: Any) -> str:
        response = self.responses[self.call_count] if self.call_count < len(self.responses) else "DONE"
        self.call_count += 1
        await hooks.emit("session:start", {"prompt": prompt})
        await context.add_message({"role": "user", "content": prompt})
        await context.add_message({"role": "assistant", "content": response})
        await hooks.emit("session:end", {"response": response})
        return response


class MockProvider:
    """A provider named "mock" answering "Mock response", or each of ``responses`` (str or ChatResponse) in
    turn; records every request it receives."""

    def __init__(self, name: str = "mock", responses: list[str | ChatResponse] | None = None) -> None:
        self.name = name
        self.responses = list(responses) if responses else []
        self.requests: list[ChatRequest] = []

    def get_info(self) -> ProviderInfo:
        return ProviderInfo(id=self.name, display_name="Mock Provider")

    async def list_models(self) -> list[ModelInfo]:
        return []

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        self.requests.append(request)
        answer: str | ChatResponse = self.responses.pop(0) if self.responses else "Mock response"
        if isinstance(answer, ChatResponse):
            return answer
        return ChatResponse(content=[TextBlock(text=answer)])

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        return list(response.tool_calls or [])


def create_test_coordinator() -> MockCoordinator:
    """A MockCoordinator with tools ``echo`` and ``fail`` and a MockContextManager already in place."""
    coordinator = MockCoordinator()
    coordinator.mount_points["tools"]["echo"] = MockTool("echo", "Echo response")
    coordinator.mount_points["tools"]["fail"] = MockTool("fail", None)
    coordinator.mount_points["context"] = MockContextManager()
    return coordinator


async def wait_for(condition: Callable[[], bool], timeout: float = 1.0) -> bool:
    """Poll ``condition`` every 10 ms until it holds (True) or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.01)


__all__ = [
    "EventRecorder",
    "HookRegistration",
    "MockApprovalSystem",
    "MockContextManager",
    "MockCoordinator",
    "MockDisplaySystem",
    "MockProvider",
    "MockTool",
    "RecordingHookRegistry",
    "ScriptedOrchestrator",
    "TestCoordinator",
    "create_test_coordinator",
    "wait_for",
]
