"""Which provider answers: one rule for the loop, the plan, the live session, the SDK warm-up and `/model`.

Written once because four copies disagreed (a `priority: "5"` was a number to the loop and "no priority" to
the plan, so the banner named a provider that did not answer). In order: a provider asked for by name; else,
when a model is asked for and exactly one provider offers it, that one; else `default_provider` when it is
among the candidates; else the lowest `priority` (a number, or a string holding one; 100 when unset), the
first listed on ties.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

DEFAULT_PRIORITY = 100.0


class PriorityError(ValueError):
    """A `priority` that is not a number; the caller names the file and key."""


def read_priority(value: Any) -> float:
    """`priority` as a number: 5, 5.0 and "5" alike; None means the default (100)."""
    if value is None:
        return DEFAULT_PRIORITY
    if isinstance(value, bool):
        raise PriorityError(f"priority must be a number, not {value!r}")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            pass
    raise PriorityError(f"priority must be a number (lower answers first), not {value!r}")


def lenient_priority(value: Any) -> float:
    """`read_priority` for places that cannot report (a provider object's attribute): bad values count as 100."""
    try:
        return read_priority(value)
    except PriorityError:
        return DEFAULT_PRIORITY


@dataclass(frozen=True)
class Candidate:
    """A provider that could answer: its mount name, module id, priority and the model names it offers."""

    name: str
    module_id: str | None = None
    priority: float = DEFAULT_PRIORITY
    models: tuple[str, ...] = field(default_factory=tuple)  # fnmatch patterns (`claude-*`); empty = unknown

    def answers_to(self, wanted: str) -> bool:
        return wanted in (self.name, self.module_id) or wanted.removeprefix("provider-") == self.name \
            or f"provider-{wanted}" == self.module_id

    def offers(self, model: str) -> bool:
        return any(fnmatch.fnmatchcase(model, pattern) for pattern in self.models)


def mount_name(entry: Mapping[str, Any]) -> str:
    """The name a plan's provider entry is mounted under: its `instance_id`, else its id without `provider-`."""
    instance = entry.get("instance_id")
    return str(instance) if instance else str(entry.get("module", "")).removeprefix("provider-")


def only_offerer(candidates: Sequence[Candidate], model: str) -> Candidate | None:
    """The one candidate that offers `model`, or None when none or several do."""
    offering = [candidate for candidate in candidates if candidate.offers(model)]
    return offering[0] if len(offering) == 1 else None


def choose(candidates: Sequence[Candidate], *, provider: str | None = None, model: str | None = None,
           default_provider: str | None = None) -> Candidate | None:
    """The candidate that answers (None when there is none, or `provider` names none of them)."""
    if not candidates:
        return None
    if provider:
        return next((candidate for candidate in candidates if candidate.answers_to(provider)), None)
    if model:
        offering = only_offerer(candidates, model)
        if offering is not None:
            return offering
    if default_provider:
        chosen = next((candidate for candidate in candidates if candidate.answers_to(default_provider)), None)
        if chosen is not None:
            return chosen
    return min(candidates, key=lambda candidate: candidate.priority)  # min keeps the first on ties


def mounted_candidates(providers: Mapping[str, Any], models: Mapping[str, tuple[str, ...]] | None = None
                       ) -> list[Candidate]:
    """Candidates from mounted provider objects (name -> provider): priority from the object's `priority`
    attribute, else its `config["priority"]`."""
    candidates = []
    for name, provider in providers.items():
        value = getattr(provider, "priority", None)
        if value is None:
            config = getattr(provider, "config", None)
            value = config.get("priority") if isinstance(config, Mapping) else None
        candidates.append(Candidate(name=name, priority=lenient_priority(value),
                                    models=(models or {}).get(name, ())))
    return candidates
