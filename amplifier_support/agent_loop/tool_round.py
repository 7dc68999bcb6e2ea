"""One round of tool calls: all calls of a response run concurrently, each framed by tool:pre and exactly one
of tool:post / tool:error. A tool call never raises out of here: unknown tools, denials, exceptions and
cancellations all become error results that the loop stores in call order."""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from typing import Any

from amplifier_core import events
from amplifier_core.cancellation import CancellationToken
from amplifier_core.message_models import ImageBlock
from amplifier_core.models import ToolResult

from .hook_gate import HookGate
from .transcript import PlannedCall

logger = logging.getLogger(__name__)

CANCELLED_RESULT = "Cancelled: the user stopped this tool call before it finished."
NOT_RUN_RESULT = "Not run: the user cancelled the turn before this tool call ran."


@dataclass(frozen=True)
class ToolOutcome:
    call: PlannedCall
    content: str
    success: bool
    images: tuple[dict[str, Any], ...] = ()  # ImageBlocks of the result's rich content, sent after the text


def _cancel_pending() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _as_tool_result(value: Any) -> ToolResult:
    if isinstance(value, ToolResult):
        return value
    if isinstance(value, dict) and {"success", "output", "error"} & value.keys():
        try:
            return ToolResult.model_validate(value)
        except ValueError:
            pass
    if hasattr(value, "success") and hasattr(value, "output"):
        return ToolResult(success=bool(value.success), output=value.output, error=getattr(value, "error", None))
    return ToolResult(output=value)


class ToolRound:
    def __init__(self, tools: dict[str, Any], gate: HookGate, token: CancellationToken,
                 active_tasks: set[asyncio.Future[Any]]) -> None:
        self.tools = tools
        self.gate = gate
        self.token = token
        self.active_tasks = active_tasks
        self.parallel_group_id = str(uuid.uuid4())

    async def run(self, calls: list[PlannedCall], outcomes: dict[str, ToolOutcome]) -> None:
        """Run ``calls``; each finished call's outcome lands in ``outcomes`` (by call id) as it completes, so
        a caller interrupted by cancellation still knows which calls produced results."""
        tasks = [asyncio.ensure_future(self._run_call(call, outcomes)) for call in calls]
        self.active_tasks.update(tasks)
        try:
            await asyncio.wait(tasks)
        except asyncio.CancelledError:
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks)
            raise
        finally:
            self.active_tasks.difference_update(tasks)

    def _event_data(self, call: PlannedCall, tool_input: dict[str, Any]) -> dict[str, Any]:
        return {"tool_name": call.name, "tool_input": tool_input, "tool_call_id": call.id,
                "parallel_group_id": self.parallel_group_id}

    async def _fail(self, call: PlannedCall, tool_input: dict[str, Any], error_type: str, message: str,
                    content: str) -> ToolOutcome:
        data = {**self._event_data(call, tool_input), "error": {"type": error_type, "msg": message}}
        try:
            await self.gate.emit(events.TOOL_ERROR, data, during_tools=True)
        except Exception:  # a broken display/approval system must not leave the call without a result
            logger.exception("applying the tool:error hook result for %s failed", call.name)
        return ToolOutcome(call, content, success=False)

    async def _run_call(self, call: PlannedCall, outcomes: dict[str, ToolOutcome]) -> None:
        self.token.register_tool_start(call.id, call.name)
        tool_input = call.arguments
        try:
            outcome = await self._execute(call)
        except asyncio.CancelledError:
            outcome = await self._fail(call, tool_input, "Cancelled", "cancelled by the user", CANCELLED_RESULT)
        except Exception as error:
            # Applying a hook's answer failed (e.g. the approval system crashed on ask_user): the call still
            # gets an error result and a tool:error, never a silent "not run" or a lost task exception.
            logger.exception("tool call %s: applying a hook result failed", call.name)
            message = f"{type(error).__name__}: {error}"
            outcome = await self._fail(call, tool_input, type(error).__name__, str(error),
                                       f"Error: the tool call '{call.name}' failed while the session's hooks "
                                       f"handled it ({message}); the tool may not have run.")
        finally:
            self.token.register_tool_complete(call.id)
        outcomes[call.id] = outcome

    async def _execute(self, call: PlannedCall) -> ToolOutcome:
        tool_input = call.arguments
        pre = await self.gate.emit(events.TOOL_PRE, self._event_data(call, tool_input), during_tools=True)
        if self.token.is_immediate or _cancel_pending():
            raise asyncio.CancelledError
        if pre.action == "deny":
            reason = pre.reason or "a hook denied this tool call"
            return await self._fail(call, tool_input, "ToolDenied", reason, f"Denied by hook: {reason}")
        modified_input = (pre.data or {}).get("tool_input")
        if isinstance(modified_input, dict):
            tool_input = modified_input
        tool = self.tools.get(call.name)
        if tool is None:
            available = ", ".join(sorted(self.tools)) or "none"
            message = f"Tool '{call.name}' is not available. Available tools: {available}."
            return await self._fail(call, tool_input, "ToolNotFound", message, f"Error: {message}")
        try:
            result = _as_tool_result(await tool.execute(tool_input))
        except asyncio.CancelledError:
            raise
        except Exception as error:
            logger.warning("tool %s raised %s: %s", call.name, type(error).__name__, error)
            message = f"{type(error).__name__}: {error}"
            return await self._fail(call, tool_input, type(error).__name__, str(error),
                                    f"Error executing tool '{call.name}': {message}")
        images = _images_of(result)
        # events carry a note per image, not its bytes (2.0.2's rule); the model gets the images if no hook
        # replaced the result
        sent = result.safe_hook_presentation() if images else result.model_dump(mode="json")
        post = await self.gate.emit(events.TOOL_POST, {**self._event_data(call, tool_input), "result": sent},
                                    during_tools=True)
        replaced = (post.data or {}).get("result", sent)
        if replaced != sent:
            result = _as_tool_result(replaced)
            images = _images_of(result)
        return ToolOutcome(call, result.get_serialized_output(), success=result.success, images=tuple(images))


def _images_of(result: ToolResult) -> list[dict[str, Any]]:
    """The image blocks of a result's rich ``content`` (already checked by the kernel: base64, image/*)."""
    return [block.model_dump(exclude_none=True) for block in result.content or [] if isinstance(block, ImageBlock)]
