"""The text a person reads before approving: tool, arguments (compact), risk, and what "Always allow" saves."""

from __future__ import annotations

import fnmatch
import json
from typing import Any

from .rules import Rule, Verdict

_VALUE_LIMIT = 100


def risk_level(tool_name: str, shell: bool, ask_tools: list[str]) -> str:
    """high for shell commands, medium for the tools asked about by default (writes), low otherwise."""
    if shell:
        return "high"
    if any(fnmatch.fnmatchcase(tool_name, pattern) for pattern in ask_tools):
        return "medium"
    return "low"


def _compact(value: Any) -> str:
    if isinstance(value, str):
        if "\n" in value:
            first = value.split("\n", 1)[0]
            first = first if len(first) <= 60 else first[:59] + "…"
            return f"{first} … ({len(value.splitlines())} lines, {len(value)} chars)"
        return value if len(value) <= _VALUE_LIMIT else value[: _VALUE_LIMIT - 1] + "…"
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _VALUE_LIMIT else text[: _VALUE_LIMIT - 1] + "…"


def describe_rule(rule: Rule) -> str:
    if rule.command:
        return f"{rule.tool}: " + "; ".join(rule.command)
    if rule.args:
        return f"{rule.tool} with " + ", ".join(f"{key}={' | '.join(items)}" for key, items in rule.args.items())
    return f"every {rule.tool} call"


def approval_prompt(tool_name: str, tool_input: dict[str, Any], verdict: Verdict, risk: str, rule: Rule,
                    shell: bool) -> str:
    lines = [f"Tool: {tool_name}"]
    if shell:
        lines.append(f"Command: {_compact(tool_input.get('command', ''))}")
        if len(verdict.commands) > 1 and verdict.pending:
            lines.append("Needs approval: " + "; ".join(verdict.pending))
        others = {key: value for key, value in tool_input.items() if key != "command"}
    else:
        others = tool_input
    for key, value in others.items():
        lines.append(f"  {key}: {_compact(value)}")
    lines.append(f"Risk: {risk}")
    lines.append(f"Always allow saves: {describe_rule(rule)}")
    return "\n".join(lines)
