"""The hook registry: how modules observe and steer the session through events.

Handlers run in ascending priority (ties in registration order); a failing handler is isolated. Result
precedence: deny (short-circuits) > ask_user (first wins) > inject_context (merged) > modify (chains data)
> continue.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from . import events
from .correlation import REQUEST_ID_FIELD, resolve_request_id
from .models import ContextInjection, HookResult

logger = logging.getLogger(__name__)

Handler = Callable[[str, dict[str, Any]], Awaitable[HookResult | None]]

# 2.0.2's hooks module exports exactly these (HookHandler stays importable by name).
__all__ = ["ContextInjection", "HookRegistry", "HookResult"]


_stamp_second = -1
_stamp_prefix = ""


def utc_timestamp() -> str:
    """Now in UTC as ISO-8601 with microseconds and ``+00:00``. The date/time prefix is formatted once per
    second: ``datetime.isoformat`` alone costs more than the rest of a one-handler emit."""
    global _stamp_second, _stamp_prefix
    seconds, nanoseconds = divmod(time.time_ns(), 1_000_000_000)
    if seconds != _stamp_second:
        _stamp_prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
        _stamp_second = seconds
    return f"{_stamp_prefix}.{nanoseconds // 1000:06d}+00:00"


@dataclass(order=True)
class HookHandler:
    """A registered handler entry, ordered by priority only. Field order matches upstream's
    ``HookHandler(handler, priority=0, name=None)`` so code constructing entries positionally still works."""

    handler: Handler = field(compare=False)
    priority: int = 0
    name: str | None = field(default=None, compare=False)
    sequence: int = field(default=0, compare=False)  # registration order, for unregister(name)


class RustHookRegistry:
    """The registry modules register handlers on and the kernel emits through.

    Its class name is 2.0.2's (there ``HookRegistry`` is its Rust engine's ``RustHookRegistry``, and code
    checks ``HookRegistry.__name__``); ``HookRegistry`` below is the name everyone uses."""

    SESSION_START = events.SESSION_START
    SESSION_END = events.SESSION_END
    PROMPT_SUBMIT = events.PROMPT_SUBMIT
    TOOL_PRE = events.TOOL_PRE
    TOOL_POST = events.TOOL_POST
    CONTEXT_PRE_COMPACT = events.CONTEXT_PRE_COMPACT
    ORCHESTRATOR_COMPLETE = events.ORCHESTRATOR_COMPLETE
    USER_NOTIFICATION = events.USER_NOTIFICATION

    def __init__(self) -> None:
        self._handlers: dict[str, list[HookHandler]] = {}
        self._registrations = 0
        self._defaults: dict[str, Any] = {}

    def register(
        self, event: str, handler: Handler, priority: int = 0, name: str | None = None
    ) -> Callable[[], None]:
        """Add ``handler`` for ``event``; returns an idempotent function that removes exactly this entry."""
        self._registrations += 1
        entry = HookHandler(handler, priority, name or getattr(handler, "__name__", None), self._registrations)
        entries = self._handlers.setdefault(event, [])
        entries.append(entry)
        entries.sort(key=lambda item: item.priority)  # stable: equal priorities keep registration order

        def unregister() -> None:
            current = self._handlers.get(event)
            if current is not None:
                for index, existing in enumerate(current):
                    if existing is entry:
                        del current[index]
                        break

        return unregister

    on = register

    def unregister(self, name: str, event: str | None = None) -> int:
        """Remove the most recent registration named ``name`` (optionally for one event), as 2.0.2 does;
        earlier ones stay, and each keeps its own handle. Returns how many were removed (0 or 1)."""
        latest: tuple[list[HookHandler], HookHandler] | None = None
        for event_name, entries in self._handlers.items():
            if event is not None and event_name != event:
                continue
            for entry in entries:
                if entry.name == name and (latest is None or entry.sequence > latest[1].sequence):
                    latest = (entries, entry)
        if latest is None:
            return 0
        entries, entry = latest
        entries[:] = [kept for kept in entries if kept is not entry]
        return 1

    def set_default_fields(self, **defaults: Any) -> None:
        """Replace the fields merged under every emitted event's data (the session sets its ids here)."""
        self._defaults = dict(defaults)

    def has_handlers(self, event: str) -> bool:
        return bool(self._handlers.get(event))

    async def emit(self, event: str, data: dict[str, Any]) -> HookResult:
        request_id = None
        if event.startswith(("llm:", "provider:")):  # pair each LLM call's events (see correlation.py)
            request_id = resolve_request_id(event, data.get(REQUEST_ID_FIELD) if isinstance(data, dict) else None)
        entries = self._handlers.get(event)
        if not entries:
            return HookResult(action="continue", data=data)
        current = {**self._defaults, **data} if self._defaults else dict(data)
        current["timestamp"] = utc_timestamp()
        if request_id is not None:
            current[REQUEST_ID_FIELD] = request_id
        ask_user: HookResult | None = None
        injections: list[tuple[HookResult, list[ContextInjection]]] = []
        for entry in list(entries):
            try:
                returned: Any = entry.handler(event, current)
                if inspect.isawaitable(returned):  # plain functions are accepted too, as 2.0.2 does
                    returned = await returned
            except asyncio.CancelledError:
                logger.error("hook handler %r for %s was cancelled; continuing", entry.name, event)
                continue
            except Exception:
                logger.exception("hook handler %r failed on %s; continuing", entry.name, event)
                continue
            if returned is None:
                continue
            result = returned if isinstance(returned, HookResult) else _coerce_result(returned, entry.name)
            action = result.action
            if action == "continue":
                continue
            if action == "deny":
                return result
            if action == "modify":
                if result.data is not None:
                    current = result.data
            elif action == "inject_context":
                items = _stamped_injections(result, entry.name, event)
                if items:
                    injections.append((result, items))
            elif action == "ask_user" and ask_user is None:
                ask_user = result
        if ask_user is not None:
            return ask_user
        if injections:
            return _merge_injections(injections)
        return HookResult(action="continue", data=current)

    async def emit_and_collect(self, event: str, data: dict[str, Any], timeout: float = 1.0) -> list[Any]:
        """Ask every handler for data (actions ignored, no defaults merged); slow handlers are skipped."""
        collected: list[Any] = []
        for entry in list(self._handlers.get(event, ())):
            try:
                result: Any = entry.handler(event, data)
                if inspect.isawaitable(result):
                    result = await asyncio.wait_for(result, timeout=timeout)
            except TimeoutError:
                logger.warning("hook handler %r timed out after %ss on %s", entry.name, timeout, event)
                continue
            except asyncio.CancelledError:
                logger.error("hook handler %r for %s was cancelled; continuing", entry.name, event)
                continue
            except Exception:
                logger.exception("hook handler %r failed on %s; continuing", entry.name, event)
                continue
            if isinstance(result, HookResult) and result.data is not None:
                collected.append(result.data)
        return collected

    def list_handlers(self, event: str | None = None) -> dict[str, list[str | None]]:
        if event is not None:
            return {event: [entry.name for entry in self._handlers.get(event, [])]}
        return {name: [entry.name for entry in entries] for name, entries in self._handlers.items()}


HookRegistry = RustHookRegistry


def _coerce_result(value: Any, handler_name: str | None) -> HookResult:
    """A dict answer is read as a HookResult; anything unreadable denies (fails closed), as in 2.0.2."""
    if isinstance(value, dict):
        try:
            return HookResult.model_validate(value)
        except ValidationError as error:
            problem = f"returned an invalid HookResult ({error.errors()[0]['msg']})"
    else:
        problem = f"returned {type(value).__name__}, not a HookResult"
    logger.warning("hook handler %r %s; failing closed (deny)", handler_name, problem)
    return HookResult(action="deny", reason=f"Hook {handler_name!r} {problem}")


def _stamped_injections(result: HookResult, hook_name: str | None, event: str) -> list[ContextInjection]:
    """The result's injections (its list, else one built from the scalar fields), tagged with their source."""
    items = result.context_injections
    if not items and result.context_injection:
        items = [ContextInjection(content=result.context_injection, role=result.context_injection_role,
                                  ephemeral=result.ephemeral,
                                  append_to_last_tool_result=result.append_to_last_tool_result)]
    stamp = {"hook_name": hook_name or "unknown", "event": event}
    return [item.model_copy(update=stamp) for item in items]


def _merge_injections(injections: list[tuple[HookResult, list[ContextInjection]]]) -> HookResult:
    """One result carrying every injection in handler order, with the scalar fields projected from them
    (texts joined by blank lines; role and output suppression of the first; ephemeral/append if any)."""
    items = [item for _, stamped in injections for item in stamped]
    projected: dict[str, Any] = {
        "action": "inject_context",
        "context_injection": "\n\n".join(item.content for item in items),
        "context_injection_role": items[0].role,
        "ephemeral": any(item.ephemeral for item in items),
        "append_to_last_tool_result": any(item.append_to_last_tool_result for item in items),
        "context_injections": items,
    }
    first = injections[0][0]
    if len(injections) == 1:
        return first.model_copy(update=projected)
    return HookResult(suppress_output=first.suppress_output, **projected)
