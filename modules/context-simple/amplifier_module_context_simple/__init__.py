"""context-simple: in-memory conversation history with non-destructive, budget-driven compaction.

``get_messages_for_request()`` returns a compacted *view* when the history is over budget; the stored history
is never changed by compaction. ``SimpleContextManager`` is also the base of context-persistent, which imports
this package as a library (the one sanctioned cross-module import; see the README).
"""

from __future__ import annotations

import copy
import logging
from datetime import UTC, datetime
from typing import Any

from pydantic import Field, model_validator

from amplifier_core.module_config import ModuleConfig, parse_module_config

from .budget import provider_budget, resolve_budget
from .compaction import ViewPlan, plan_from_cut, plan_view, split_units
from .message_copy import copy_tree
from .token_estimate import estimate_message_tokens

__amplifier_module_type__ = "context"
__all__ = [
    "SimpleContextConfig", "SimpleContextManager", "ViewPlan", "estimate_message_tokens", "mount",
    "plan_view", "provider_budget", "split_units",
]

logger = logging.getLogger(__name__)

MODULE_ID = "context-simple"
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
    """A copy of ``message`` (sharing nothing mutable with the caller's) with ``metadata.timestamp`` set
    when absent."""
    stamped = copy_tree(message)
    metadata = stamped.get("metadata")
    if isinstance(metadata, dict) and "timestamp" in metadata:
        return stamped
    stamped["metadata"] = {**(metadata if isinstance(metadata, dict) else {}), "timestamp": _timestamp()}
    return stamped


class SimpleContextManager:
    """In-memory history plus cached per-message token estimates; compaction builds views, never edits."""

    def __init__(self, config: SimpleContextConfig | None = None, hooks: Any = None) -> None:
        self.config = config or SimpleContextConfig()
        self._hooks = hooks
        self._max_tokens_is_cap = "max_tokens" in self.config.model_fields_set
        self._messages: list[dict[str, Any]] = []
        self._estimates: list[int] = []
        self._sticky_cut: int | None = None

    # -- storage hooks for subclasses (context-persistent writes its file here) ----------------------
    def _persist_append(self, message: dict[str, Any]) -> None:
        """Called after ``message`` joined the history."""

    def _persist_replace(self) -> None:
        """Called after the whole history was replaced (set_messages, clear)."""

    def _load(self, messages: list[dict[str, Any]]) -> None:
        self._messages = messages
        self._estimates = [estimate_message_tokens(message) for message in messages]
        self._sticky_cut = None

    # -- the ContextManager protocol -----------------------------------------------------------------
    async def add_message(self, message: dict[str, Any]) -> None:
        """Append a message (never rejected, so tool results always land); stamps ``metadata.timestamp``."""
        if not isinstance(message, dict):
            logger.warning("context: ignoring a %s passed to add_message; messages are dicts",
                           type(message).__name__)
            return
        stored = stamp_message(message)
        self._messages.append(stored)
        self._estimates.append(estimate_message_tokens(stored))
        self._persist_append(stored)

    async def get_messages(self) -> list[dict[str, Any]]:
        """The full, uncompacted history (a deep copy: changing it does not change the context)."""
        return copy.deepcopy(self._messages)

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        """Replace the history (used on resume)."""
        kept = [copy_tree(message) for message in messages if isinstance(message, dict)]
        if len(kept) != len(messages):
            logger.warning("context: set_messages skipped %d entries that are not dicts",
                           len(messages) - len(kept))
        self._load(kept)
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
        total = sum(self._estimates)
        trigger = int(budget * self.config.compact_threshold)
        if total <= trigger:
            self._sticky_cut = None
            return [copy_tree(message) for message in self._messages]
        pairs = zip(self._messages, self._estimates, strict=True)
        system_tokens = sum(estimate for message, estimate in pairs if message.get("role") == "system")
        plan: ViewPlan | None = None
        if self._sticky_cut is not None:
            plan = plan_from_cut(self._messages, self._estimates, self._sticky_cut, system_tokens)
            if plan is not None and plan.tokens > trigger:
                plan = None
        if plan is None:
            plan = await self._compact(budget, total, system_tokens)
        return self._render(plan)

    async def _compact(self, budget: int, total: int, system_tokens: int) -> ViewPlan:
        await self._emit(PRE_COMPACT, {"message_count": len(self._messages), "token_count": total,
                                       "budget": budget})
        target = int(budget * self.config.target_usage)
        plan = plan_view(self._messages, self._estimates, target, system_tokens)
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
        view = [copy_tree(self._messages[index]) for index in plan.indices]
        if self.config.compaction_notice and plan.omitted:
            note = {
                "role": "system",
                "content": f"[{plan.omitted} earlier messages of this conversation were omitted from this "
                           "request to fit the context window.]",
                "metadata": {"source": NOTICE_SOURCE},
            }
            insert_at = next((position for position, message in enumerate(view)
                              if message.get("role") != "system"), len(view))
            view.insert(insert_at, note)
        return view

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
        return sum(self._estimates) > int(self.config.max_tokens * self.config.compact_threshold)

    async def _compact_internal(self) -> None:
        """Nothing to do: compaction only ever shapes request views; the stored history stays whole."""

    should_compact = _should_compact
    compact = _compact_internal


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> None:
    """Mount a SimpleContextManager at the ``context`` mount point."""
    parsed = parse_module_config(SimpleContextConfig, config, MODULE_ID)
    manager = SimpleContextManager(parsed, hooks=getattr(coordinator, "hooks", None))
    await coordinator.mount("context", manager)
    logger.debug("context-simple mounted (max_tokens=%d)", parsed.max_tokens)
