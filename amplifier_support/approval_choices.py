"""The answers an approval prompt offers, as a type: the choice and the label a person reads.

Through the kernel's ApprovalSystem protocol a choice still travels as its label (a string, as upstream
hooks and approval systems expect). Whoever decides on an answer turns the label back into a choice with
``ApprovalChoice.of`` and acts on the choice, never on the wording: hooks-approval builds its options from
these members, the chat and the one-shot approval systems pick and act by member.
"""

from __future__ import annotations

from enum import Enum


class ApprovalChoice(Enum):
    """One answer to an approval request; the value is the label shown (upstream's wording)."""

    ALLOW_ONCE = "Allow once"
    ALWAYS_ALLOW = "Always allow"  # allow, and save a rule so the same request is not asked again
    DENY = "Deny"
    RUN_UNCONFINED_ONCE = "Run once outside the sandbox"  # allow once, with the shell tool's sandbox lifted

    @property
    def label(self) -> str:
        return self.value

    @property
    def allows(self) -> bool:
        """True for the choices that let the tool call run."""
        return self is not ApprovalChoice.DENY

    @classmethod
    def of(cls, label: object) -> ApprovalChoice | None:
        """The choice a label stands for (case and surrounding space ignored; upstream's plain "Allow" and
        "Allow always" included); None for a label of some other hook, which is passed on as it is."""
        if not isinstance(label, str):
            return None
        return _BY_TEXT.get(label.strip().lower())

    def among(self, options: list[str]) -> str | None:
        """The option in ``options`` that stands for this choice, as the hook spelled it."""
        return next((option for option in options if ApprovalChoice.of(option) is self), None)


_BY_TEXT = {choice.label.lower(): choice for choice in ApprovalChoice}
_BY_TEXT.update({"allow": ApprovalChoice.ALLOW_ONCE, "allow always": ApprovalChoice.ALWAYS_ALLOW})


APPROVAL_DECISION_FIELD = "decision"
"""The key of ``approval:required`` data by which a hook decides the request without asking anyone: a handler
answering ``modify`` with ``{APPROVAL_DECISION_FIELD: "allow"}`` (and optionally a changed ``tool_input``) grants
it; one answering ``deny`` refuses it. hook-shell's PermissionRequest hooks answer this way, hooks-approval reads
it (see its README)."""
