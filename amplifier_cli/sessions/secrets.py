"""Which values of a session are secrets, so nothing the session persists holds one.

The plan keeps `${VAR}` references (never values); a reference in a key-like config field (`api_key`,
`token`, `password`, ...) marks VAR's value as a secret, as do the environment variables named like one
(`*_API_KEY`, `*_TOKEN`, `*_SECRET`, ...) and the providers' key variables. The result goes to the session
record (transcript, metadata, saved plan, exports are masked `[REDACTED:NAME]`) and to modules as capability
`secrets.values` (hooks-logging, hooks-redaction)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from amplifier_core.utils import SENSITIVE_KEYS
from amplifier_support.secret_values import KEY_LIKE_FIELD, SecretValues, secret_environment

from ..config.module_facts import entry_module_id, facts_of

__all__ = ["plan_secrets", "session_secrets"]

_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-?([^}]*))?\}")


def _key_like_refs(value: Any, key: str | None, found: dict[str, str | None], literals: dict[str, str],
                   where: str = "") -> None:
    """References in key-like fields go to ``found`` (name -> default); a literal value written straight into
    a key-like field (a key pasted into a profile) goes to ``literals``, named by its path."""
    if isinstance(value, str):
        if key is not None and KEY_LIKE_FIELD.search(key):
            refs = list(_REF.finditer(value))
            for match in refs:
                found.setdefault(match.group(1), match.group(2))
            if not refs and key.lower() in SENSITIVE_KEYS:  # only the unmistakable names: `sort_key: name`
                literals.setdefault(where, value)  # must not mask every "name" in the transcript
    elif isinstance(value, dict):
        label = value.get("module") if isinstance(value.get("module"), str) else None
        for child_key, child in value.items():
            path = f"{label or where}.{child_key}" if (label or where) else str(child_key)
            _key_like_refs(child, str(child_key), found, literals, path)
    elif isinstance(value, list):
        for child in value:
            _key_like_refs(child, key, found, literals, where)


def plan_secrets(plan: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """{NAME: value} of what the plan reads through `${NAME}` into key-like fields, and the providers' key
    variables (with a `${NAME:-default}` default, the default counts when NAME is unset); a value written
    literally into a key-like field is named by its place (`provider-anthropic.config.api_key`)."""
    environ = os.environ if environ is None else environ
    refs: dict[str, str | None] = {}
    literals: dict[str, str] = {}
    _key_like_refs(dict(plan), None, refs, literals)
    for section in ("providers",):
        for entry in plan.get(section) or []:
            key_env = facts_of(entry_module_id(entry)).key_env  # as the provider module declares it
            if key_env:
                refs.setdefault(key_env, None)
    found: dict[str, str] = dict(literals)
    for name, default in refs.items():
        value = environ.get(name) or default
        if value:
            found[name] = value
    return found


def session_secrets(plan: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> SecretValues:
    return SecretValues({**secret_environment(environ), **plan_secrets(plan, environ)})
