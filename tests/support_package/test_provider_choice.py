"""The one rule for which provider answers."""

from __future__ import annotations

import pytest

from amplifier_support.provider_choice import Candidate, PriorityError, choose, read_priority

ANTHROPIC = Candidate("anthropic", "provider-anthropic", 10, ("claude-*",))
OPENAI = Candidate("openai", "provider-openai", 20, ("gpt-*", "o3*"))


def test_priority_is_a_number_whether_written_as_a_string_or_not() -> None:
    assert read_priority("5") == read_priority(5) == read_priority(5.0) == 5.0
    assert read_priority(None) == 100.0
    for bad in ("first", True, [1]):
        with pytest.raises(PriorityError):
            read_priority(bad)


def test_order_of_the_rule() -> None:
    assert choose([OPENAI, ANTHROPIC]) is ANTHROPIC  # lowest priority
    assert choose([OPENAI, ANTHROPIC], default_provider="openai") is OPENAI
    assert choose([OPENAI, ANTHROPIC], default_provider="provider-openai") is OPENAI
    assert choose([ANTHROPIC, OPENAI], model="gpt-5-mini", default_provider="anthropic") is OPENAI
    assert choose([ANTHROPIC, OPENAI], model="llama-3") is ANTHROPIC  # nobody offers it: the usual choice
    assert choose([ANTHROPIC, OPENAI], provider="anthropic", model="gpt-5-mini") is ANTHROPIC
    assert choose([ANTHROPIC, OPENAI], provider="mistral") is None
    twin = Candidate("other", None, 10)
    assert choose([ANTHROPIC, twin]) is ANTHROPIC  # first listed on ties
