"""In-memory conversation history with non-destructive, budget-driven compaction (context-simple's manager).

``get_messages_for_request()`` returns a compacted *view* when the history is over budget; the stored history
is never changed by compaction. Stored messages are read-only and shared by every request (see
``amplifier_core.read_only_messages``), so a request costs the same at turn 1000 as at turn 10.
context-simple mounts ``SimpleContextManager``; context-persistent subclasses it (modules never import each
other, so the manager lives here).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from pydantic import Field, model_validator

from amplifier_core.module_config import ModuleConfig
from amplifier_core.read_only_messages import RequestMessages, freeze, read_only_model, thaw

from .budget import provider_budget, resolve_budget
from .compaction import ViewPlan, first_kept_unit, plan_view, split_units
from .history import History
from .token_estimate import estimate_message_tokens

__all__ = [
    "SimpleContextConfig", "SimpleContextManager", "ViewPlan", "estimate_message_tokens", "plan_view",
    "provider_budget", "split_units",
]

logger = logging.getLogger(__name__)

PRE_COMPACT = "context:pre_compact"
POST_COMPACT = "context:post_compact"
NOTICE_SOURCE = "context-compaction"

# Keys of upstream's context managers that this policy has no use for. They are accepted (so upstream
# profiles keep loading) and reported once, instead of failing the mount.
IGNORED_UPSTREAM_KEYS = frozenset({
    "protected_recent", "protected_tool_results", "truncate_chars", "truncate_boundary",
    "compaction_notice_token_reserve", "compaction_notice_verbosity", "compaction_notice_min_level",
    "output_reserve_fraction", "max_tool_result_bytes", "token_meter", "memory_files",
})


class SimpleContextConfig(ModuleConfig):
    """Config of context-simple (context-persistent extends it). Defaults are listed in the README."""

    max_tokens: int = Field(200_000, gt=0)
    compact_threshold: float = Field(0.92, gt=0, le=1)
    target_usage: float = Field(0.5, gt=0, le=1)
    safety_margin_tokens: int = Field(1000, ge=0)
    compaction_notice: bool = True

    @model_validator(mode="before")
    @classmethod
    def _accept_upstream_keys(cls, raw: Any) -> Any:
        if not isinstance(raw, dict):
            return raw
        raw = dict(raw)
        if "compaction_notice_enabled" in raw and "compaction_notice" not in raw:
            raw["compaction_notice"] = raw.pop("compaction_notice_enabled")
        ignored = sorted(key for key in raw if key in IGNORED_UPSTREAM_KEYS)
        for key in ignored:
            raw.pop(key)
        if ignored:
            logger.warning("context config: ignoring upstream key(s) %s, which this context manager does not "
                           "use; remove them from the mount plan", ", ".join(ignored))
        return raw

    @model_validator(mode="after")
    def _target_below_threshold(self) -> SimpleContextConfig:
        if self.target_usage > self.compact_threshold:
            raise ValueError(f"target_usage ({self.target_usage}) must not exceed compact_threshold "
                             f"({self.compact_threshold}): compaction would never get below its trigger")
        return self


def _timestamp() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def stamp_message(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with ``metadata.timestamp`` set when absent (a shallow copy then; the caller's dict is never
    changed). The history freezes the result, which copies whatever is still mutable."""
    metadata = message.get("metadata")
    if isinstance(metadata, dict) and "timestamp" in metadata:
        return message
    return {**message, "metadata": {**(metadata if isinstance(metadata, dict) else {}), "timestamp": _timestamp()}}


class SimpleContextManager:
    """In-memory history plus cached per-message token estimates; compaction builds views, never edits."""

    def __init__(self, config: SimpleContextConfig | None = None, hooks: Any = None) -> None:
        self.config = config or SimpleContextConfig()
        self._hooks = hooks
        self._max_tokens_is_cap = "max_tokens" in self.config.model_fields_set
        self._history = History()
        self._sticky_cut: int | None = None

    @property
    def _messages(self) -> list[dict[str, Any]]:
        """The stored (read-only) messages, for subclasses."""
        return self._history.messages

    @property
    def _estimates(self) -> list[int]:
        return self._history.estimates

    # -- storage hooks for subclasses (context-persistent writes its file here) ----------------------
    def _persist_append(self, message: dict[str, Any]) -> None:
        """Called after ``message`` joined the history."""

    def _persist_replace(self) -> None:
        """Called after the whole history was replaced (set_messages, clear)."""

    def _load(self, messages: list[dict[str, Any]], *, validated: bool = False) -> None:
        """Seed the history. ``validated=True`` says the messages were validated when first stored (a resume):
        their models are then built only when a request first includes them."""
        self._history = History(messages, validate=not validated)
        self._sticky_cut = None

    # -- the ContextManager protocol -----------------------------------------------------------------
    async def add_message(self, message: dict[str, Any]) -> None:
        """Append a message (never rejected, so tool results always land); stamps ``metadata.timestamp``."""
        if not isinstance(message, dict):
            logger.warning("context: ignoring a %s passed to add_message; messages are dicts",
                           type(message).__name__)
            return
        stored = self._history.append(stamp_message(message))
        self._persist_append(stored)

    async def get_messages(self) -> list[dict[str, Any]]:
        """The full, uncompacted history (a mutable deep copy: changing it does not change the context)."""
        return thaw(self._history.messages)

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        """Replace the history (used on resume). Messages are not validated again here: each one is when a
        request first includes it."""
        kept = [message for message in messages if isinstance(message, dict)]
        if len(kept) != len(messages):
            logger.warning("context: set_messages skipped %d entries that are not dicts",
                           len(messages) - len(kept))
        self._load(kept, validated=True)
        self._persist_replace()

    async def clear(self) -> None:
        self._load([])
        self._persist_replace()

    async def get_messages_for_request(self, token_budget: int | None = None,
                                       provider: Any | None = None) -> list[dict[str, Any]]:
        """The messages to send: everything when it fits under ``compact_threshold`` x budget, else a view
        compacted to ``target_usage`` x budget (reused while it still fits, so the prefix stays stable)."""
        budget = await resolve_budget(token_budget, provider, self.config.max_tokens, self._max_tokens_is_cap,
                                      self.config.safety_margin_tokens)
        history = self._history
        trigger = int(budget * self.config.compact_threshold)
        if history.total <= trigger:
            self._sticky_cut = None
            return history.everything()
        plan: ViewPlan | None = None
        if self._sticky_cut is not None:
            unit_index = history.unit_index_at(self._sticky_cut)
            if unit_index is not None:
                plan = history.plan(unit_index)
                if plan.tokens > trigger:
                    plan = None
        if plan is None:
            plan = await self._compact(budget, history.total, history.system_tokens)
        return self._render(plan)

    async def _compact(self, budget: int, total: int, system_tokens: int) -> ViewPlan:
        await self._emit(PRE_COMPACT, {"message_count": len(self._messages), "token_count": total,
                                       "budget": budget})
        target = int(budget * self.config.target_usage)
        plan = self._history.plan(first_kept_unit(self._history.units, target, system_tokens))
        self._sticky_cut = plan.cut
        if plan.tokens > budget:
            logger.warning("context: even the minimal view (system messages, latest user message, newest "
                           "turn) is ~%d tokens, over the budget of %d; the provider may reject the request",
                           plan.tokens, budget)
        await self._emit(POST_COMPACT, {
            "message_count": len(plan.indices), "token_count": plan.tokens,
            "messages_before": len(self._messages), "messages_after": len(plan.indices),
            "messages_omitted": plan.omitted, "tokens_before": total, "tokens_after": plan.tokens,
            "budget": budget,
        })
        return plan

    def _render(self, plan: ViewPlan) -> list[dict[str, Any]]:
        view = self._history.view(plan)
        if not (self.config.compaction_notice and plan.omitted):
            return view
        note = freeze({
            "role": "system",
            "content": f"[{plan.omitted} earlier messages of this conversation were omitted from this "
                       "request to fit the context window.]",
            "metadata": {"source": NOTICE_SOURCE},
        })
        insert_at = next((position for position, message in enumerate(view)
                          if message.get("role") != "system"), len(view))
        models = view.models()
        if models is not None:
            models.insert(insert_at, read_only_model(note))
        messages = list(view)
        messages.insert(insert_at, note)
        return RequestMessages(messages, models)

    async def _emit(self, event: str, data: dict[str, Any]) -> None:
        if self._hooks is None:
            return
        try:
            await self._hooks.emit(event, data)
        except Exception as error:
            logger.warning("context: emitting %s failed: %s", event, error)

    # -- optional protocol members probed by conformance suites ------------------------------------
    async def _should_compact(self) -> bool:
        """Whether a request with the configured ``max_tokens`` budget would get a compacted view."""
        return self._history.total > int(self.config.max_tokens * self.config.compact_threshold)

    async def _compact_internal(self) -> None:
        """Nothing to do: compaction only ever shapes request views; the stored history stays whole."""

    should_compact = _should_compact
    compact = _compact_internal

