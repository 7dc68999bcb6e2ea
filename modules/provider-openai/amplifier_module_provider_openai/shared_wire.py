"""Wire pieces the Responses API and Chat Completions have in common: function definitions, tool-choice
keywords, the named JSON schema of a response format, tool-call arguments and usage counts. Each converter
wraps them in its own API's shape."""

from __future__ import annotations

import json
import logging
from typing import Any

from amplifier_core.message_models import ToolSpec, Usage

logger = logging.getLogger(__name__)

_TOOL_CHOICE_KEYWORDS = ("auto", "none", "required")


def function_definition(tool: ToolSpec) -> dict[str, Any]:
    """A tool's name, JSON-schema parameters (an empty object schema when it declares none) and description."""
    definition: dict[str, Any] = {"name": tool.name,
                                  "parameters": tool.parameters or {"type": "object", "properties": {}}}
    if tool.description:
        definition["description"] = tool.description
    return definition


def tool_choice_keyword(choice: str) -> str | None:
    """``auto``, ``none`` or ``required`` for a keyword choice (``any`` means required); None for a tool name."""
    if choice in _TOOL_CHOICE_KEYWORDS:
        return choice
    return "required" if choice == "any" else None


def named_json_schema(response_format: Any) -> dict[str, Any]:
    """``{name, schema, strict?}`` of a ``json_schema`` response format, as both APIs take it."""
    schema: dict[str, Any] = {"name": "response", "schema": response_format.json_schema}
    if response_format.strict is not None:
        schema["strict"] = response_format.strict
    return schema


def parse_arguments(raw: Any, *, tool_name: str) -> dict[str, Any]:
    """Tool arguments from the JSON text the model produced; invalid JSON becomes {} (logged), so the tool
    reports the missing parameters to the model instead of the whole turn failing."""
    if isinstance(raw, dict):
        return raw
    if not raw or not str(raw).strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        logger.warning("openai: arguments for tool %s are not valid JSON; passing {}: %.200s", tool_name, raw)
        return {}
    return value if isinstance(value, dict) else {"value": value}


def usage_from_counts(gross_input: Any, output: Any, total: Any, *, cached: Any, reasoning: Any) -> Usage:
    """Usage from either API's counts. Both report input gross (cached tokens included), as the kernel wants;
    a missing total is input + output."""
    input_tokens = int(gross_input or 0)
    output_tokens = int(output or 0)
    return Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=int(total or input_tokens + output_tokens),
        cache_read_tokens=int(cached) if cached is not None else None,
        reasoning_tokens=int(reasoning) if reasoning is not None else None,
    )
