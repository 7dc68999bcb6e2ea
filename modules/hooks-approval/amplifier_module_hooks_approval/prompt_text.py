"""The text a person reads before approving: tool, arguments (compact; a shell command whole), risk, and what
"Always allow" saves. Control, bidi and zero-width characters are shown as escapes, so none can hide or
reorder what is approved (a carriage return would let the rest of a line overwrite it)."""

from __future__ import annotations

import json
from typing import Any

from .rules import Rule, Verdict, tool_matches

_VALUE_LIMIT = 100
_COMMAND_LIMIT = 4000  # a longer command is shown up to here, with how much more there is
# Characters that move the cursor, change what the terminal shows or reorder text (bidi controls, zero-width):
# in an approval prompt they could hide part of the command from the person approving it.
_INVISIBLE = frozenset({0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2028, 0x2029, 0xFEFF,
                        *range(0x202A, 0x202F), *range(0x2066, 0x206A)})


def visible(text: str) -> str:
    """``text`` with every control, bidi and zero-width character written as an escape (``\\r``, ``\\x1b``,
    ``\\u202e``), line breaks kept."""
    out = []
    for char in text:
        code = ord(char)
        if char == "\n":
            out.append(char)
        elif code < 32 or 0x7F <= code < 0xA0 or code in _INVISIBLE:
            escaped = {"\r": "\\r", "\t": "\\t", "\b": "\\b"}.get(char)
            out.append(escaped or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"))
        else:
            out.append(char)
    return "".join(out)


def _command_lines(command: str) -> list[str]:
    """The whole shell line, every line of it, escaped: the person approves all of it, not a summary."""
    shown = visible(command[:_COMMAND_LIMIT])
    lines = shown.split("\n") or [""]
    result = [f"Command: {lines[0]}"] + [f"         {line}" for line in lines[1:]]
    if len(command) > _COMMAND_LIMIT:
        result.append(f"         [... {len(command) - _COMMAND_LIMIT} more characters not shown: deny and ask "
                      "for a shorter command ...]")
    return result


def risk_level(tool_name: str, shell: bool, ask_tools: list[str]) -> str:
    """high for shell commands, medium for the tools asked about by default (writes), low otherwise."""
    if shell:
        return "high"
    if any(tool_matches(tool_name, pattern) for pattern in ask_tools):
        return "medium"
    return "low"


def _compact(value: Any) -> str:
    return visible(_shortened(value))


def _shortened(value: Any) -> str:
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
    """What the person reads: the call, the commands as parsed, the part that made it ask, what it does."""
    lines = [f"Tool: {tool_name}"]
    if shell:
        command = tool_input.get("command", "")
        lines += _command_lines(command if isinstance(command, str) else str(command))
        if verdict.commands and (len(verdict.commands) > 1 or verdict.commands[0] != _one_line(command)):
            lines.append("Parsed commands: " + visible(" | ".join(_limited(verdict.commands))))
        if len(verdict.commands) > 1 and verdict.pending and not verdict.always_ask:
            lines.append("Needs approval: " + visible("; ".join(verdict.pending)))
        others = {key: value for key, value in tool_input.items() if key != "command"}
    else:
        others = tool_input
    for key, value in others.items():
        lines.append(f"  {key}: {_compact(value)}")
    for part in verdict.unjudged[:_LISTED]:
        lines.append("Could not be judged, so it is asked: " + visible(part))
    for place in verdict.protected[:_LISTED]:
        lines.append("Writes to a protected place, always asked: " + visible(place))
    what = "; ".join(label for label in verdict.labels[:_LISTED] if label not in verdict.unjudged)
    lines.append(f"Risk: {risk}" + (f" ({visible(what)})" if what else ""))
    if verdict.always_ask:
        lines.append("Always allow: not offered (no rule can cover this)")
    else:
        lines.append(f"Always allow saves: {visible(describe_rule(rule))}")
    return "\n".join(lines)


_LISTED = 6


def _one_line(command: Any) -> str:
    return " ".join(str(command).split())


def _limited(items: list[str]) -> list[str]:
    shown = items[:20]
    return shown + ([f"... {len(items) - 20} more"] if len(items) > 20 else [])
