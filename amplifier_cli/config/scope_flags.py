"""`--local/--project/--global` as used by every command that writes settings (default: --global)."""

from __future__ import annotations

from ..errors import UsageError
from .settings import Scope


def scope_from_flags(local: bool, project: bool, global_: bool) -> Scope:
    chosen = [name for name, flag in (("local", local), ("project", project), ("user", global_)) if flag]
    if len(chosen) > 1:
        raise UsageError.single("choose only one of --local, --project, --global")
    return chosen[0] if chosen else "user"  # type: ignore[return-value]


def scope_from_word(word: str | None) -> Scope:
    """Positional scope words (`amplifier source add ID URI project`): local, project, global/user."""
    if word is None:
        return "user"
    mapping: dict[str, Scope] = {"local": "local", "project": "project", "global": "user", "user": "user"}
    if word.lower() not in mapping:
        raise UsageError.single(f"unknown scope '{word}'", fix="use local, project or global")
    return mapping[word.lower()]


def scope_from_word_or_flags(word: str | None, local: bool, project: bool, global_: bool) -> Scope:
    """A positional scope word or one of --local/--project/--global (not both)."""
    if word is not None and (local or project or global_):
        raise UsageError.single(
            f"choose only one scope: '{word}' and a --local/--project/--global flag were both given"
        )
    return scope_from_word(word) if word is not None else scope_from_flags(local, project, global_)
