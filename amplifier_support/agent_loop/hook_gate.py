"""Emitting events and honouring what hooks answer: deny, modify, ask_user and context injections.

Persistent injections are stored by the coordinator; ephemeral ones are queued here and added to the next
provider request only. Injections returned while tools run are held back until the tool results are stored,
so an assistant tool call is always immediately followed by its results in the context.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from amplifier_core.message_models import Message
from amplifier_core.models import ContextInjection, HookResult

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class EphemeralInjection:
    content: str
    role: str
    append_to_last_tool_result: bool


class HookGate:
    def __init__(self, hooks: Any, coordinator: Any) -> None:
        self.hooks = hooks
        self.coordinator = coordinator
        self._ephemeral: list[EphemeralInjection] = []
        self._deferred: list[tuple[HookResult, str]] = []

    async def emit(self, event: str, data: dict[str, Any], *, during_tools: bool = False) -> HookResult:
        """Emit ``event`` and apply its result; returns the effective result (ask_user resolved to
        continue/deny). ``result.data`` carries the data as modified by ``modify`` handlers."""
        result = await self.hooks.emit(event, data)
        if not isinstance(result, HookResult):
            return HookResult(action="continue", data=data)
        if during_tools and result.action == "inject_context" and (result.context_injection
                                                                    or result.context_injections):
            self._deferred.append((result, event))
            return result
        return await self._apply(result, event)

    async def flush_deferred(self) -> None:
        """Apply injections that arrived while tools were running (call after storing the tool results)."""
        deferred, self._deferred = self._deferred, []
        for result, event in deferred:
            await self._apply(result, event)

    def take_ephemeral(self) -> list[EphemeralInjection]:
        pending, self._ephemeral = self._ephemeral, []
        return pending

    def add_ephemeral(self, injection: EphemeralInjection) -> None:
        self._ephemeral.append(injection)

    async def _apply(self, result: HookResult, event: str) -> HookResult:
        if self.coordinator is not None:
            processed = await self.coordinator.process_hook_result(result, event, hook_name=f"{event} hook")
        elif result.action == "ask_user":
            processed = HookResult(action="deny", reason="No approval system available")
        else:
            processed = result
        # What is left after processing is ephemeral only (the coordinator stored the durable items): queue
        # that, not the original result, or a mixed result would send its durable text a second time.
        if processed.action == "inject_context":
            for item in _injection_items(processed):
                if item.ephemeral and item.content:
                    self._ephemeral.append(EphemeralInjection(item.content, item.role, item.append_to_last_tool_result))
        return processed


def _injection_items(result: HookResult) -> list[ContextInjection]:
    """A result's injections as items: its list, or the one item its scalar fields describe."""
    if result.context_injections:
        return list(result.context_injections)
    if not result.context_injection:
        return []
    return [ContextInjection(content=result.context_injection, role=result.context_injection_role,
                             ephemeral=result.ephemeral, append_to_last_tool_result=result.append_to_last_tool_result)]


def with_ephemeral(messages: list[Message], injections: list[EphemeralInjection]) -> list[Message]:
    """``messages`` (the request's own list, changed in place and returned) with the injections applied:
    appended to the last tool result's text when asked and the last message is one, else added as a message
    with the injection's role. Nothing is stored; the shared read-only models are replaced, never changed."""
    for injection in injections:
        last = messages[-1] if messages else None
        if (injection.append_to_last_tool_result and last is not None and last.role == "tool"
                and isinstance(last.content, str)):
            messages[-1] = last.model_copy(update={"content": f"{last.content}\n\n{injection.content}"})
        else:
            messages.append(Message.model_validate({"role": injection.role, "content": injection.content}))
    return messages
