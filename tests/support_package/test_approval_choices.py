"""ApprovalChoice: a label read back as its choice, whatever its case; other hooks' labels are no choice."""

from __future__ import annotations

import pytest

from amplifier_support.approval_choices import ApprovalChoice


@pytest.mark.parametrize(("label", "choice"), [
    ("Allow once", ApprovalChoice.ALLOW_ONCE), ("allow", ApprovalChoice.ALLOW_ONCE),
    ("  ALLOW ONCE ", ApprovalChoice.ALLOW_ONCE), ("Always allow", ApprovalChoice.ALWAYS_ALLOW),
    ("Allow always", ApprovalChoice.ALWAYS_ALLOW), ("Deny", ApprovalChoice.DENY),
    ("Run once outside the sandbox", ApprovalChoice.RUN_UNCONFINED_ONCE),
])
def test_a_label_reads_back_as_its_choice(label: str, choice: ApprovalChoice) -> None:
    assert ApprovalChoice.of(label) is choice


@pytest.mark.parametrize("label", ["Allow for this session", "Run once outside", "Deny and stop", "", None, 3])
def test_a_label_of_another_hook_or_a_prefix_is_no_choice(label: object) -> None:
    assert ApprovalChoice.of(label) is None


def test_among_finds_the_option_as_the_hook_spelled_it() -> None:
    options = ["allow", "Deny"]
    assert ApprovalChoice.ALLOW_ONCE.among(options) == "allow"
    assert ApprovalChoice.DENY.among(options) == "Deny"
    assert ApprovalChoice.ALWAYS_ALLOW.among(options) is None


def test_only_deny_stops_the_call() -> None:
    assert [choice for choice in ApprovalChoice if not choice.allows] == [ApprovalChoice.DENY]
