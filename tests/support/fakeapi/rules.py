"""Script rules: which request a scripted Turn or Fault answers, and how many times."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from .request import RecordedRequest
from .script import Fault, Turn

Reply = Turn | Fault | Callable[[RecordedRequest], Turn | Fault]


@dataclass
class Rule:
    """A reply plus its matchers. All given matchers must hold; `times=None` repeats forever.

    `gate`/`delay` hold the whole response before its first byte (a slow first byte); `matched` is set
    when the rule first answers, so a test can wait for "the request is in flight" without sleeping.
    """

    reply: Reply
    when: Callable[[RecordedRequest], bool] | None = None
    last_user_contains: str | None = None
    last_tool_result_contains: str | None = None
    first_user_contains: str | None = None
    api: str | None = None
    times: int | None = 1
    gate: threading.Event | None = None
    delay: float = 0.0
    hits: int = 0
    requests: list[RecordedRequest] = field(default_factory=list)
    matched: threading.Event = field(default_factory=threading.Event)

    @property
    def exhausted(self) -> bool:
        return self.times is not None and self.hits >= self.times

    def matches(self, request: RecordedRequest) -> bool:
        if self.exhausted:
            return False
        if self.api is not None and request.api != self.api:
            return False
        if self.last_user_contains is not None and self.last_user_contains not in request.last_user_text:
            return False
        if self.last_tool_result_contains is not None and (
            self.last_tool_result_contains not in request.last_tool_result_text
        ):
            return False
        if self.first_user_contains is not None and self.first_user_contains not in request.first_user_text:
            return False
        return self.when is None or bool(self.when(request))

    def resolve(self, request: RecordedRequest) -> Turn | Fault:
        """The Turn or Fault for this request (calls the reply when it is a function)."""
        reply = self.reply
        if isinstance(reply, (Turn, Fault)):
            return reply
        return reply(request)

    def describe(self) -> str:
        parts = [type(self.reply).__name__ if isinstance(self.reply, (Turn, Fault)) else "callable"]
        for name in ("api", "last_user_contains", "last_tool_result_contains", "first_user_contains"):
            value = getattr(self, name)
            if value is not None:
                parts.append(f"{name}={value!r}")
        if self.when is not None:
            parts.append("when=<predicate>")
        parts.append(f"hits={self.hits}/{'∞' if self.times is None else self.times}")
        return "Rule(" + ", ".join(parts) + ")"
