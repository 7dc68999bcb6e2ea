"""Typed module configuration: parse a mount plan's ``config`` dict once, reject unknown keys with a message
that names the module, the key and the closest valid key."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

T = TypeVar("T", bound="ModuleConfig")


class ModuleConfigError(ValueError):
    """A module's config has an unknown key or a value of the wrong type."""


class ModuleConfig(BaseModel):
    """Base for a module's config model: unknown keys are errors, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


def _location(error: Mapping[str, Any]) -> str:
    return ".".join(str(part) for part in error.get("loc", ())) or "(root)"


def describe_config_errors(module_id: str, model: type[BaseModel], error: ValidationError) -> str:
    valid = sorted(model.model_fields)
    lines = []
    for item in error.errors():
        where = _location(item)
        if item.get("type") == "extra_forbidden":
            key = str(item["loc"][-1])
            close = difflib.get_close_matches(key, valid, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            lines.append(f"unknown key '{where}'{hint}; valid keys: {', '.join(valid)}")
        else:
            lines.append(f"'{where}': {item.get('msg')} (got {item.get('input')!r})")
    return f"{module_id} config: " + "; ".join(lines)


def parse_module_config(model: type[T], config: Mapping[str, Any] | None, module_id: str) -> T:
    """Validate ``config`` against ``model``; raise ModuleConfigError with a readable message."""
    try:
        return model.model_validate(dict(config or {}))
    except ValidationError as error:
        raise ModuleConfigError(describe_config_errors(module_id, model, error)) from None
