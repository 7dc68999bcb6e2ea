"""Which tool call is being decided. The kernel asks the approval system with a prompt and options only; a
front-end that shows the question next to the call (ACP's `session/request_permission` names its toolCallId)
and the session's own accept-edits rule need the call itself. A `tool:pre` handler that runs before every other
one records it in a context variable: each tool call runs in its own task, so parallel calls never see each
other's, and the approval question is asked later in that same task."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

RECORD_PRIORITY = -20_000  # before the plan-mode gate and hooks-approval: it only records


@dataclass(frozen=True)
class ToolCallInQuestion:
    call_id: str
    name: str
    arguments: dict[str, Any]


_CURRENT: ContextVar[ToolCallInQuestion | None] = ContextVar("amplifier_tool_call_in_question", default=None)


def tool_call_in_question() -> ToolCallInQuestion | None:
    """The tool call whose `tool:pre` is running in this task (None outside a tool call)."""
    return _CURRENT.get()


def record_tool_calls(coordinator: Any) -> None:
    from amplifier_core import HookResult

    async def record(event: str, data: dict[str, Any]) -> HookResult:
        arguments = data.get("tool_input")
        _CURRENT.set(ToolCallInQuestion(str(data.get("tool_call_id") or ""), str(data.get("tool_name") or ""),
                                        arguments if isinstance(arguments, dict) else {}))
        return HookResult()

    coordinator.hooks.register("tool:pre", record, priority=RECORD_PRIORITY, name="app-tool-call-in-question")
