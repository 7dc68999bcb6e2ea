""""Always allow" / "always deny": the pending request becomes a rule of hooks-approval (capability
`approval.remember`) for the rest of the session, saved for this project in the user's config dir
(config/approval_rules.py) so later sessions answer the same request the same way. Shared by every front-end
that asks a person: the chat's question and ACP's `session/request_permission`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from amplifier_support.capability_names import APPROVAL_REMEMBER

from ..config.approval_rules import save_rule
from ..config.paths import AmplifierPaths


@dataclass(frozen=True)
class Remembered:
    note: str  # what to tell the person ("" when there is nothing to say)
    saved: bool = False
    failed: bool = False  # a rule was made but could not be saved (it still holds for this session)


def remember_answer(coordinator: Any, paths: AmplifierPaths, prompt: str,
                    action: Literal["allow", "deny"] = "allow") -> Remembered:
    remember = coordinator.get_capability(APPROVAL_REMEMBER) if coordinator is not None else None
    if not callable(remember):
        return Remembered(f"({'allowed' if action == 'allow' else 'denied'} for this request only: no approval hook "
                          "offers to remember rules)")
    rule = remember(prompt, action) if action == "deny" else remember(prompt)  # upstream hooks take the prompt only
    if not rule:
        return Remembered("")
    try:
        path = save_rule(paths, rule)
    except Exception as error:  # the answer still counts; only saving failed
        return Remembered(f"could not save the rule: {error}", failed=True)
    return Remembered(f"saved rule in {path}", saved=True)
