"""`key=value` arguments on the command line (`tool invoke`, `provider edit`), JSON where a value parses."""

from __future__ import annotations

import json
from typing import Any

from ..errors import UsageError


def parse_tool_arguments(pairs: list[str]) -> dict[str, Any]:
    """`key=value` pairs; a value that parses as JSON (numbers, true, lists, objects, "quoted") is that value."""
    arguments: dict[str, Any] = {}
    for pair in pairs:
        key, equals, raw = pair.partition("=")
        if not equals or not key:
            raise UsageError.single(f"argument '{pair}' is not key=value",
                                    fix='write each argument as key=value, e.g. command="ls -la"')
        try:
            arguments[key] = json.loads(raw)
        except ValueError:
            arguments[key] = raw
    return arguments
