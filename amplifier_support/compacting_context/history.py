"""The stored history and everything derived from it, kept up to date one append at a time.

A request must not cost more as the conversation grows, so nothing here walks the whole history per request:
messages are frozen (read-only, shared with every request) and validated into read-only ``Message`` models
when they arrive, token estimates are cached, totals and prefix sums are running, and the compaction units of
``compaction.split_units`` are extended incrementally by the same rules.
"""

from __future__ import annotations

import logging
from bisect import bisect_left
from collections.abc import Sequence
from typing import Any, cast

from pydantic import ValidationError

from amplifier_core.message_models import Message
from amplifier_core.read_only_messages import RequestMessages, freeze, read_only_model

from .compaction import Unit, ViewPlan
from .token_estimate import estimate_message_tokens

logger = logging.getLogger(__name__)


def _call_ids(message: dict[str, Any]) -> set[str]:
    return {call["id"] for call in message.get("tool_calls") or []
            if isinstance(call, dict) and isinstance(call.get("id"), str)}


class History:
    """Messages (read-only dicts), their models, estimates and compaction units. Append-only; replaced whole."""

    def __init__(self, messages: Sequence[dict[str, Any]] = (), *, validate: bool = True) -> None:
        self.messages: list[dict[str, Any]] = []
        self.models: list[Message | None] = []
        self.estimates: list[int] = []
        self.total = 0
        self.system_tokens = 0
        self.system_indices: list[int] = []
        self._nonsystem_tokens = [0]  # prefix sums over messages[:i]
        self._nonsystem_count = [0]
        self.units: list[Unit] = []
        self._unit_at: dict[int, int] = {}  # unit start -> unit index
        self.last_user_unit: int | None = None
        self._open_tool_unit = False
        self._pending: set[str] = set()
        self._invalid: set[int] = set()  # indices of messages that do not validate into a Message
        self._complete_from = 0  # every model from this index on is built (or its message is invalid)
        for message in messages:
            self.append(message, validate=validate)

    def append(self, message: dict[str, Any], *, validate: bool = True) -> dict[str, Any]:
        """Freeze ``message`` and add it; returns the stored (read-only) message. With ``validate=False`` (a
        resume of messages validated when they were first added) the model is built on first use."""
        stored = freeze(message)
        index = len(self.messages)
        estimate = estimate_message_tokens(stored)
        self.messages.append(stored)
        if validate:
            self.models.append(self._model(index, stored))
        else:
            self.models.append(None)
            self._complete_from = index + 1
        self.estimates.append(estimate)
        self.total += estimate
        role = stored.get("role")
        system = role == "system"
        if system:
            self.system_tokens += estimate
            self.system_indices.append(index)
        self._nonsystem_tokens.append(self._nonsystem_tokens[-1] + (0 if system else estimate))
        self._nonsystem_count.append(self._nonsystem_count[-1] + (0 if system else 1))
        self._extend_units(stored, role, index, 0 if system else estimate)
        return stored

    def _model(self, index: int, stored: dict[str, Any]) -> Message | None:
        try:
            return read_only_model(stored)
        except ValidationError:
            self._invalid.add(index)  # kept (nothing is rejected); a request including it fails in the loop
            return None

    def _extend_units(self, message: dict[str, Any], role: Any, index: int, tokens: int) -> None:
        """``compaction.split_units`` one message at a time: a tool-call unit absorbs what follows until every
        call is answered (tool results always; other roles only while calls are pending, never an assistant)."""
        if self._open_tool_unit:
            if role == "tool":
                self._pending.discard(message.get("tool_call_id"))
                self._grow_last_unit(index, tokens)
                return
            if self._pending and role != "assistant":
                self._grow_last_unit(index, tokens)
                return
            self._open_tool_unit = False
        if role == "system":
            return
        self._unit_at[index] = len(self.units)
        self.units.append(Unit(index, index + 1, tokens, role))
        if role == "user":
            self.last_user_unit = len(self.units) - 1
        if role == "assistant" and message.get("tool_calls"):
            self._open_tool_unit = True
            self._pending = _call_ids(message)

    def _grow_last_unit(self, index: int, tokens: int) -> None:
        last = self.units[-1]
        self.units[-1] = Unit(last.start, index + 1, last.tokens + tokens, last.first_role)

    # -- views ----------------------------------------------------------------------------------------------
    def unit_index_at(self, start: int) -> int | None:
        return self._unit_at.get(start)

    def plan(self, first_kept: int) -> ViewPlan:
        """The view keeping system messages, units[first_kept:] and the last user unit (as compaction._plan),
        computed from running sums: its cost does not depend on the history before the cut."""
        count = len(self.messages)
        cut = self.units[first_kept].start if first_kept < len(self.units) else count
        head = self.system_indices[:bisect_left(self.system_indices, cut)]
        tokens = self.system_tokens + self._nonsystem_tokens[count] - self._nonsystem_tokens[cut]
        kept = self._nonsystem_count[count] - self._nonsystem_count[cut]
        last_user = self.last_user_unit
        if last_user is not None and last_user < first_kept:
            unit = self.units[last_user]
            head = sorted({*head, *range(unit.start, unit.end)})
            tokens += unit.tokens
            kept += self._nonsystem_count[unit.end] - self._nonsystem_count[unit.start]
        return ViewPlan(head + list(range(cut, count)), cut, self._nonsystem_count[count] - kept, tokens)

    def everything(self) -> RequestMessages:
        """The whole history as one request's messages (a list copy; the messages are shared, read-only)."""
        return RequestMessages(self.messages, self._models_of([], 0))

    def view(self, plan: ViewPlan) -> RequestMessages:
        head = [index for index in plan.indices if index < plan.cut]
        messages = [self.messages[index] for index in head] + self.messages[plan.cut:]
        return RequestMessages(messages, self._models_of(head, plan.cut))

    def _models_of(self, head: list[int], cut: int) -> list[Message] | None:
        """Models of ``head`` + everything from ``cut``, building any not built yet (after a resume) once; None
        when one of them does not validate (the loop then validates the dicts itself and reports the error)."""
        if cut < self._complete_from:
            self._build_models(range(cut, self._complete_from))
            self._complete_from = cut
        self._build_models(head)
        if self._invalid and any(index >= cut or index in head for index in self._invalid):
            return None
        built = cast("list[Message]", self.models)  # every model of the view was built and is valid (checked above)
        if not head:
            return built[cut:]
        return [built[index] for index in head] + built[cut:]

    def _build_models(self, indices: Any) -> None:
        models, messages, invalid = self.models, self.messages, self._invalid
        for index in indices:
            if models[index] is None and index not in invalid:
                models[index] = self._model(index, messages[index])
