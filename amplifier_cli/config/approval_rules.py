"""Approval rules the user saved ("Always allow"), kept in settings under `approval.rules`. Every session
receives them as capability `approval.rules` (hooks-approval reads it at mount), whatever way it was started:
chat, one-shot run or sub-agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .paths import AmplifierPaths
from .settings import SCOPES, Settings, scope_path, update_scope

SAVED_RULES_CAPABILITY = "approval.rules"


def saved_rules(settings: Settings) -> list[dict[str, Any]]:
    """Every scope's `approval.rules`, user first (lists are concatenated, not replaced)."""
    rules: list[dict[str, Any]] = []
    for scope in SCOPES:
        found = (settings.scopes[scope].data.get("approval") or {}).get("rules") or []
        rules.extend(rule for rule in found if isinstance(rule, dict))
    return rules


def save_rule(paths: AmplifierPaths, rule: dict[str, Any]) -> Path:
    """Append ``rule`` to `approval.rules` of the local settings (user settings when there is no project)."""
    from .yaml_document import load_yaml_document

    scope = "local" if paths.local_settings is not None else "user"
    path = scope_path(paths, scope)
    current: list[Any] = []
    if path is not None and path.is_file():
        data = load_yaml_document(path).data
        if isinstance(data, dict):
            current = list((data.get("approval") or {}).get("rules") or [])
    if rule not in current:
        current.append(rule)
    return update_scope(paths, scope, ("approval", "rules"), current)
