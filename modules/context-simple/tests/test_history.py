"""The incremental history keeps exactly what the whole-history functions of compaction.py compute, one append
at a time, on randomly shaped conversations (injected user/system messages inside tool rounds, unanswered
calls, stray tool results)."""

from __future__ import annotations

import random

import pytest

from amplifier_support.compacting_context.compaction import (
    _last_user_unit,
    _plan,
    first_kept_unit,
    plan_view,
    split_units,
)
from amplifier_support.compacting_context.history import History


def random_conversation(seed: int, length: int = 60) -> list[dict]:
    rng = random.Random(seed)
    messages: list[dict] = []
    pending: list[str] = []
    for index in range(length):
        roll = rng.random()
        if pending and roll < 0.5:
            call_id = pending.pop(rng.randrange(len(pending)))
            messages.append({"role": "tool", "tool_call_id": call_id, "content": "r" * rng.randrange(1, 80)})
        elif roll < 0.6:
            messages.append({"role": "system", "content": "s" * rng.randrange(1, 40)})
        elif roll < 0.75:
            messages.append({"role": "user", "content": "u" * rng.randrange(1, 120)})
        elif roll < 0.9:
            calls = [f"c{index}_{n}" for n in range(rng.randrange(1, 3))]
            pending.extend(calls)
            messages.append({"role": "assistant", "content": [{"type": "text", "text": "t"}],
                             "tool_calls": [{"id": call, "tool": "x", "arguments": {}} for call in calls]})
        elif roll < 0.95:
            messages.append({"role": "tool", "tool_call_id": "stray", "content": "?"})
        else:
            messages.append({"role": "assistant", "content": [{"type": "text", "text": "a" * rng.randrange(90)}]})
    return messages


@pytest.mark.parametrize("seed", range(40))
def test_units_totals_and_plans_match_the_whole_history_functions(seed):
    messages = random_conversation(seed)
    history = History()
    for count, message in enumerate(messages, start=1):
        history.append(message)
        units = split_units(history.messages, history.estimates)
        assert history.units == units, f"after {count} messages"
        assert history.total == sum(history.estimates)
        assert history.system_tokens == sum(estimate for message, estimate in zip(
            history.messages, history.estimates, strict=True) if message["role"] == "system")
        last_user = _last_user_unit(units)
        assert history.last_user_unit == last_user
        for target in (0, 50, 200, 10_000):
            expected = plan_view(history.messages, history.estimates, target, history.system_tokens)
            chosen = first_kept_unit(history.units, target, history.system_tokens)
            assert history.plan(chosen) == expected, f"after {count} messages, target {target}"
        for first_kept in range(len(units) + 1):
            expected = _plan(history.messages, units, first_kept, history.system_tokens, last_user)
            assert history.plan(first_kept) == expected, f"after {count} messages, first kept unit {first_kept}"


def test_models_after_a_resume_are_built_once_when_first_requested():
    messages = random_conversation(7, length=30)
    history = History(messages, validate=False)
    assert all(model is None for model in history.models)
    plan = history.plan(len(history.units) - 2)
    view = history.view(plan)
    ready = view.models()
    assert ready is not None and len(ready) == len(view)
    built = [index for index, model in enumerate(history.models) if model is not None]
    assert built == sorted(plan.indices)
    again = history.everything().models()
    assert again is not None and all(again[index] is ready[position]
                                     for position, index in enumerate(plan.indices))


def test_an_invalid_message_is_kept_and_its_requests_carry_no_ready_models():
    history = History([{"role": "user", "content": "hi"}])
    history.append({"role": "robot", "content": "beep"})
    assert len(history.messages) == 2
    assert history.everything().models() is None
