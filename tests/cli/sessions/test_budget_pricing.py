"""Budget limits narrow and never widen; prices come from the profile, the provider, then the app's table, and
an unknown price stays unknown; a project's `budget:` settings need no trust (they only narrow)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from amplifier_cli.config.trust import gated_settings
from amplifier_cli.sessions.budget import Budget, exceeded, parse_budget
from amplifier_cli.sessions.budget_setup import apply_max_turns
from amplifier_cli.sessions.pricing import Pricer, parse_price
from amplifier_cli.sessions.usage import UsageTracker


def test_the_smallest_limit_of_each_kind_wins() -> None:
    wide = Budget(max_turns=10, max_total_tokens=None, max_cost=Decimal("5"))
    narrow = Budget(max_turns=20, max_total_tokens=300, max_cost=Decimal("1"))
    assert wide.narrowed(narrow) == Budget(max_turns=10, max_total_tokens=300, max_cost=Decimal("1"))
    assert narrow.narrowed(None) == narrow


@pytest.mark.parametrize(("data", "needle"), [
    ({"max_cost": 0}, "more than 0"), ({"max_turns": 0}, "at least 1"), ({"max_tokens": 5}, "unknown budget key"),
    ({"max_total_tokens": True}, "whole number"), ({"max_cost": "lots"}, "amount in USD"),
])
def test_bad_budgets_are_refused_naming_the_key(data: dict, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        parse_budget(data)


def test_cache_reads_and_writes_are_priced_apart_and_input_is_gross_of_cache_reads() -> None:
    price = parse_price({"input": 3, "output": 15, "cache_read": "0.3", "cache_write": "3.75"})
    usage = {"input_tokens": 1_000_000, "cache_read_tokens": 400_000, "cache_write_tokens": 100_000,
             "output_tokens": 100_000}
    # 600k fresh * 3 + 400k * 0.3 + 100k * 3.75 + 100k * 15 (per million)
    assert price.cost(usage) == Decimal("1.800000") + Decimal("0.12") + Decimal("0.375") + Decimal("1.5")


def test_the_profile_overrides_the_provider_and_the_app_table_and_unknown_stays_unknown() -> None:
    pricer = Pricer({"claude-sonnet-4-6": parse_price({"input": 1, "output": 1})})
    usage = {"input_tokens": 1_000_000, "output_tokens": 0}
    assert pricer.cost("claude-sonnet-4-6-20260101", usage, "9.99") == Decimal("1")
    assert Pricer().cost("claude-sonnet-4-6", usage, "9.99") == Decimal("9.99")  # the provider's own figure
    assert Pricer().cost("gpt-4o-mini", usage, None) == Decimal("0.15")  # the app's table
    assert Pricer().cost("no-such-model", usage, None) is None
    assert not Pricer().known("no-such-model") and Pricer().known("gpt-4o-mini-2024-07-18")


async def test_the_tracker_reports_the_budget_once_when_reached() -> None:
    reached = []
    tracker = UsageTracker(Pricer(), Budget(max_total_tokens=100))
    tracker.on_budget_reached = reached.append
    await tracker.on_llm_response("llm:response", {"model": "m", "usage": {"input_tokens": 60, "output_tokens": 10}})
    assert reached == []
    await tracker.on_llm_response("llm:response", {"model": "m", "usage": {"input_tokens": 30, "output_tokens": 10}})
    await tracker.on_llm_response("llm:response", {"model": "m", "usage": {"input_tokens": 30, "output_tokens": 10}})
    assert [stop.as_dict() for stop in reached] == [{"budget": "max_total_tokens", "limit": "100", "used": "110"}]
    assert exceeded(Budget(max_cost=Decimal("1")), tracker.session) is None  # unknown cost is not counted as 0


def test_max_turns_narrows_the_orchestrator_limit_only() -> None:
    plan = {"session": {"orchestrator": {"module": "loop-basic", "config": {"max_iterations": 3}}}}
    apply_max_turns(plan, 10)
    assert plan["session"]["orchestrator"]["config"]["max_iterations"] == 3
    apply_max_turns(plan, 2)
    assert plan["session"]["orchestrator"]["config"]["max_iterations"] == 2
    unlimited = {"session": {"orchestrator": "loop-basic"}}
    apply_max_turns(unlimited, 5)
    assert unlimited["session"]["orchestrator"] == {"module": "loop-basic", "config": {"max_iterations": 5}}


def test_a_project_budget_needs_no_trust() -> None:
    harmless, gated = gated_settings({"budget": {"max_cost": 1}, "modules": {"tools": []}})
    assert harmless == {"budget": {"max_cost": 1}} and set(gated) == {"modules"}


async def test_a_response_of_unknown_price_under_a_cost_limit_stops_instead_of_counting_zero() -> None:
    reached = []
    tracker = UsageTracker(Pricer(), Budget(max_cost=Decimal("5")))
    tracker.on_budget_reached = reached.append
    await tracker.on_llm_response("llm:response", {"model": "gpt-4o-mini", "usage": {"input_tokens": 10}})
    assert reached == []
    await tracker.on_llm_response("llm:response", {"model": "priced-nowhere", "usage": {"input_tokens": 10}})
    assert [stop.budget for stop in reached] == ["max_cost"] and "unknown" in reached[0].used
