"""The compaction policy: which stored messages a request sees when the history is over budget.

Pure functions over the history and its cached per-message estimates, so both context managers share them
and they are easy to test. The history is cut into *units*: a user or plain assistant message is a unit of
one; an assistant message with ``tool_calls`` forms one unit with the tool results (and any user or system
message a hook injected in between) that follow it until every call is answered, so a call and its result
are kept or dropped together. System messages are never part of a unit: they are always kept, in their
original positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Unit:
    start: int  # index of the unit's first message in the history
    end: int  # one past its last message
    tokens: int  # estimate of its non-system messages
    first_role: str | None


@dataclass(frozen=True)
class ViewPlan:
    """Which history indices a request sees; ``cut`` is the history index where the kept tail begins."""

    indices: list[int]
    cut: int
    omitted: int
    tokens: int


def _call_ids(message: dict[str, Any]) -> set[str]:
    ids: set[str] = set()
    for call in message.get("tool_calls") or []:
        if isinstance(call, dict) and isinstance(call.get("id"), str):
            ids.add(call["id"])
    return ids


def split_units(messages: Sequence[dict[str, Any]], estimates: Sequence[int]) -> list[Unit]:
    """Group the non-system messages into units that must be kept or dropped as a whole."""
    units: list[Unit] = []
    index = 0
    count = len(messages)
    while index < count:
        message = messages[index]
        role = message.get("role")
        if role == "system":
            index += 1
            continue
        end = index + 1
        if role == "assistant" and message.get("tool_calls"):
            pending = _call_ids(message)
            while end < count:
                following = messages[end]
                following_role = following.get("role")
                if following_role == "tool":
                    pending.discard(following.get("tool_call_id"))
                elif not pending or following_role == "assistant":
                    break  # a hook may inject user/system messages before the last result arrives
                end += 1
        tokens = sum(estimates[position] for position in range(index, end)
                     if messages[position].get("role") != "system")
        units.append(Unit(index, end, tokens, role))
        index = end
    return units


def _plan(messages: Sequence[dict[str, Any]], units: list[Unit], first_kept: int, system_tokens: int,
          last_user: int | None) -> ViewPlan:
    kept_units = set(range(first_kept, len(units)))
    if last_user is not None:
        kept_units.add(last_user)
    kept_positions: set[int] = set()
    tokens = system_tokens
    for unit_index in kept_units:
        unit = units[unit_index]
        kept_positions.update(range(unit.start, unit.end))
        tokens += unit.tokens
    indices = [position for position, message in enumerate(messages)
               if position in kept_positions or message.get("role") == "system"]
    non_system_total = sum(1 for message in messages if message.get("role") != "system")
    non_system_kept = sum(1 for position in kept_positions if messages[position].get("role") != "system")
    cut = units[first_kept].start if first_kept < len(units) else len(messages)
    return ViewPlan(indices, cut, non_system_total - non_system_kept, tokens)


def _last_user_unit(units: list[Unit]) -> int | None:
    for unit_index in range(len(units) - 1, -1, -1):
        if units[unit_index].first_role == "user":
            return unit_index
    return None


def plan_view(messages: Sequence[dict[str, Any]], estimates: Sequence[int], target_tokens: int,
              system_tokens: int, units: list[Unit] | None = None) -> ViewPlan:
    """Keep system messages, the latest user message, the newest unit, and as many of the most recent units
    as fit in ``target_tokens``. The kept tail starts at a user message when one is available, so the view
    never opens with an assistant turn or a tool result whose call was dropped. ``units`` are
    ``split_units(messages, estimates)`` when the caller keeps them already."""
    if units is None:
        units = split_units(messages, estimates)
    return _plan(messages, units, first_kept_unit(units, target_tokens, system_tokens), system_tokens,
                 _last_user_unit(units))


def first_kept_unit(units: list[Unit], target_tokens: int, system_tokens: int) -> int:
    """Where plan_view's kept tail starts (a unit index); walks back from the newest unit only as far as the
    target allows, so its cost is the size of the view, not of the history."""
    if not units:
        return 0
    last_user = _last_user_unit(units)
    newest = len(units) - 1
    used = system_tokens + units[newest].tokens
    if last_user is not None and last_user != newest:
        used += units[last_user].tokens
    first_kept = newest
    for unit_index in range(newest - 1, -1, -1):
        if unit_index == last_user:
            first_kept = unit_index
            continue
        if used + units[unit_index].tokens > target_tokens:
            break
        used += units[unit_index].tokens
        first_kept = unit_index
    if last_user is not None:
        while first_kept < last_user and units[first_kept].first_role != "user":
            first_kept += 1
    return first_kept


def plan_from_cut(messages: Sequence[dict[str, Any]], estimates: Sequence[int], cut: int,
                  system_tokens: int) -> ViewPlan | None:
    """Rebuild the view of an earlier compaction (same cut point), or None when ``cut`` is no longer a unit
    boundary of this history. Reusing the cut keeps the request prefix stable across turns (prompt caches)."""
    units = split_units(messages, estimates)
    for unit_index, unit in enumerate(units):
        if unit.start == cut:
            return _plan(messages, units, unit_index, system_tokens, _last_user_unit(units))
    return None
