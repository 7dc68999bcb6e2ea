"""Pairs each LLM call's events by a ``request_id`` the kernel stamps on the emit path.

``llm:request`` opens a call with a fresh id; ``llm:response`` or ``provider:error`` echo it and close the
call; ``provider:retry``/``provider:throttle`` echo it while the call is open. The slot lives in a
context variable, so concurrent calls in different tasks (a forked agent, a background summariser)
never share an id, and an event outside any call gets none rather than a wrong one. An id the emitter
supplies itself always wins.
"""

from __future__ import annotations

import uuid
from contextvars import ContextVar

__all__ = [
    "INTERIM_EVENTS", "REQUEST_EVENTS", "REQUEST_ID_FIELD", "TERMINAL_EVENTS", "current_request_id",
    "new_request_id", "reset_request_id", "resolve_request_id",
]

REQUEST_ID_FIELD = "request_id"
REQUEST_EVENTS = frozenset({"llm:request"})
TERMINAL_EVENTS = frozenset({"llm:response", "provider:error"})
INTERIM_EVENTS = frozenset({"provider:retry", "provider:throttle"})

# (request id, call still open) for the current task's LLM call, if any.
_current_call: ContextVar[tuple[str, bool] | None] = ContextVar("amplifier_core_llm_call", default=None)


def new_request_id() -> str:
    """A fresh id, made before the request is sent (a provider's own id arrives too late, or never)."""
    return str(uuid.uuid4())


def current_request_id() -> str | None:
    """The id of the call open in this context, or None (none open, or its terminal event has passed)."""
    call = _current_call.get()
    return call[0] if call is not None and call[1] else None


def reset_request_id() -> None:
    """Forget this context's call (for tests and teardown)."""
    _current_call.set(None)


def resolve_request_id(event: str, explicit: str | None = None) -> str | None:
    """The id to stamp on ``event`` (None for events that carry none), updating this context's call."""
    if event in REQUEST_EVENTS:
        started = explicit or new_request_id()
        _current_call.set((started, True))
        return started
    if event in TERMINAL_EVENTS:
        request_id = explicit or current_request_id()
        if request_id is not None:
            _current_call.set((request_id, False))
        return request_id
    if event in INTERIM_EVENTS:
        if explicit:
            _current_call.set((explicit, True))
            return explicit
        return current_request_id()
    return None
