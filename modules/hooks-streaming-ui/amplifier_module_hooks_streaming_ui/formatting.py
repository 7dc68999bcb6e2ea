"""Compact text for tool calls, tool results and usage lines (pure functions, easy to test)."""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from typing import Any


def compact_arguments(arguments: Any, limit: int = 120) -> str:
    """One line: `key=value, ...` with long values cut, e.g. `path=src/a.py, content=<2 lines, 40 chars>`."""
    if not isinstance(arguments, dict):
        text = json.dumps(arguments, ensure_ascii=False, default=str)
        return text if len(text) <= limit else text[: limit - 1] + "…"
    parts = []
    for key, value in arguments.items():
        if isinstance(value, str):
            if "\n" in value:
                rendered = f"<{len(value.splitlines())} lines, {len(value)} chars>"
            else:
                rendered = value if len(value) <= 60 else value[:59] + "…"
        else:
            rendered = json.dumps(value, ensure_ascii=False, default=str)
            if len(rendered) > 60:
                rendered = rendered[:59] + "…"
        parts.append(f"{key}={rendered}")
    line = ", ".join(parts)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def result_text(result: Any) -> tuple[bool, str]:
    """(success, text) of a tool:post result, which may be a ToolResult, its dict form, or anything."""
    if hasattr(result, "model_dump"):
        result = result.model_dump(mode="json")
    if isinstance(result, dict) and ("success" in result or "output" in result or "error" in result):
        success = bool(result.get("success", True))
        output = result.get("output")
        if output is None and not success:
            output = (result.get("error") or {}).get("message", "failed")
        if isinstance(output, dict) and "stdout" in output:
            text = str(output.get("stdout") or "")
            if not success and output.get("stderr"):
                text += ("\n" if text else "") + str(output["stderr"])
        elif isinstance(output, (dict, list)):
            text = json.dumps(output, ensure_ascii=False, default=str)
        else:
            text = "" if output is None else str(output)
        return success, text
    return True, "" if result is None else str(result)


def first_lines(text: str, max_lines: int, max_chars: int = 200) -> list[str]:
    """The first ``max_lines`` lines (each cut at ``max_chars``), plus a `… (N more lines)` marker."""
    lines = text.rstrip("\n").split("\n") if text else []
    shown = [line if len(line) <= max_chars else line[: max_chars - 1] + "…" for line in lines[:max_lines]]
    if len(lines) > max_lines:
        shown.append(f"… ({len(lines) - max_lines} more lines)")
    return shown


def format_cost(cost: Any) -> str | None:
    if cost is None:
        return None
    try:
        value = Decimal(str(cost))
    except InvalidOperation:
        return None
    if value == 0:
        return "$0"
    if value < Decimal("0.01"):
        return f"${value:.2g}" if value >= Decimal("0.0001") else "<$0.0001"
    return f"${value:.2f}"


def usage_line(usage: dict[str, int], cost: Any, requests: int) -> str:
    parts = [f"in {usage.get('input_tokens', 0):,}", f"out {usage.get('output_tokens', 0):,}"]
    if usage.get("cache_read_tokens"):
        parts.append(f"cached {usage['cache_read_tokens']:,}")
    cost_text = format_cost(cost)
    if cost_text:
        parts.append(cost_text)
    calls = f" · {requests} call{'s' if requests != 1 else ''}" if requests > 1 else ""
    return "tokens: " + " · ".join(parts) + calls
