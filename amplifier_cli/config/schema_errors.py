"""Turn pydantic ValidationErrors into Problems that name the file, line, key path and a fix."""

from __future__ import annotations

import difflib
import types
import typing
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import Problem
from .yaml_document import KeyPath, YamlDocument


def validate_document(model: type[BaseModel], doc: YamlDocument, *, data: Any = None) -> tuple[Any, list[Problem]]:
    """Validate `data` (default: the document's data) against `model`; return (instance or None, problems)."""
    payload = doc.data if data is None else data
    try:
        return model.model_validate(payload), []
    except ValidationError as exc:
        return None, problems_from_validation_error(exc, model, doc)


def problems_from_validation_error(exc: ValidationError, model: type[BaseModel], doc: YamlDocument) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[tuple[KeyPath, str]] = set()
    for error in exc.errors(include_url=False):
        loc = tuple(error["loc"])
        kind = error["type"]
        if (loc, kind) in seen:
            continue
        seen.add((loc, kind))
        key_path = format_key_path(loc)
        line = doc.line_of(loc)
        if kind == "extra_forbidden":
            unknown = str(loc[-1])
            valid = field_names_at(model, loc[:-1])
            close = difflib.get_close_matches(unknown, valid, n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else f"valid keys here: {', '.join(valid) or 'none'}"
            problems.append(Problem(f"unknown key '{unknown}'", doc.path, line, key_path, hint))
        elif kind == "missing":
            problems.append(
                Problem(f"required key '{loc[-1]}' is missing", doc.path, line, key_path, f"add '{loc[-1]}:'")
            )
        else:
            message = str(error["msg"]).removeprefix("Value error, ")
            got = error.get("input")
            shown = repr(got) if not isinstance(got, dict | list) else type(got).__name__
            problems.append(Problem(f"{message} (got {shown})", doc.path, line, key_path or None, None))
    return problems


def format_key_path(loc: KeyPath) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def field_names_at(model: type[BaseModel], loc: KeyPath) -> list[str]:
    """Valid keys of the model reached by walking `loc` (list indexes and dict keys are stepped over)."""
    current: Any = model
    for part in loc:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            if field is None:
                return []
            current = field.annotation
        else:
            origin = typing.get_origin(current)
            args = typing.get_args(current)
            if origin in (list, dict) and args:
                current = args[-1]
            else:
                return []
    current = _unwrap(current)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def _unwrap(annotation: Any) -> Any:
    """`X | None` -> X, repeatedly, so the walk sees the model."""
    while typing.get_origin(annotation) in (typing.Union, types.UnionType):
        non_none = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(non_none) != 1:
            return annotation
        annotation = non_none[0]
    return annotation
