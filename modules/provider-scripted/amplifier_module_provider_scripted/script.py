"""The script format: a list of model turns, from the mount config or a YAML/JSON file.

A turn is a mapping with any of ``text``, ``thinking`` (+ ``signature``), ``tool_calls`` ([{name, arguments,
id?}]), ``usage`` ({input_tokens, output_tokens, cost_usd?}), ``error`` ({type, message}), ``match`` and
``stop_reason``; a bare string is shorthand for ``{text: ...}``. Errors name where the script came from and
the entry number (counting from 1).
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from amplifier_core import llm_errors
from amplifier_core.module_config import ModuleConfigError

ERROR_TYPES: dict[str, type[llm_errors.LLMError]] = {
    name: getattr(llm_errors, name) for name in llm_errors.__all__
}


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolCallSpec(_Spec):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class UsageSpec(_Spec):
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: str | None = None


class ErrorSpec(_Spec):
    type: str = "LLMError"
    message: str

    @field_validator("type")
    @classmethod
    def _known_error(cls, value: str) -> str:
        if value not in ERROR_TYPES:
            close = difflib.get_close_matches(value, ERROR_TYPES, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ValueError(f"unknown error type '{value}'{hint}; valid types: {', '.join(sorted(ERROR_TYPES))}")
        return value

    def build(self) -> llm_errors.LLMError:
        return ERROR_TYPES[self.type](self.message, provider="scripted")


class TurnSpec(_Spec):
    text: str | None = None
    thinking: str | None = None
    signature: str | None = None
    tool_calls: list[ToolCallSpec] = Field(default_factory=list)
    usage: UsageSpec | None = None
    error: ErrorSpec | None = None
    match: str | None = None
    stop_reason: str | None = None

    @model_validator(mode="after")
    def _says_something(self) -> TurnSpec:
        if self.text is None and self.thinking is None and not self.tool_calls and self.error is None:
            raise ValueError("a turn needs at least one of text, thinking, tool_calls or error")
        if self.signature is not None and self.thinking is None:
            raise ValueError("signature is only valid together with thinking")
        return self


_ALL_KEYS = sorted(set(TurnSpec.model_fields) | set(ToolCallSpec.model_fields) | set(UsageSpec.model_fields)
                   | set(ErrorSpec.model_fields))


def _describe(error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item.get("loc", ()))
        if item.get("type") == "extra_forbidden":
            key = str(item["loc"][-1])
            close = difflib.get_close_matches(key, _ALL_KEYS, n=1)
            problems.append(f"unknown key '{where}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
        else:
            message = str(item.get("msg", "")).removeprefix("Value error, ")
            problems.append(f"'{where}': {message}" if where else message)
    return "; ".join(problems)


def parse_script(entries: Any, source: str) -> list[TurnSpec]:
    """Validate every entry; ``source`` says where the script came from, for the error message."""
    if not isinstance(entries, list):
        raise ModuleConfigError(f"provider-scripted: {source} must be a list of turns, got {type(entries).__name__}")
    turns = []
    for number, entry in enumerate(entries, start=1):
        try:
            turns.append(TurnSpec.model_validate({"text": entry} if isinstance(entry, str) else entry))
        except ValidationError as error:
            raise ModuleConfigError(f"provider-scripted: {source}, entry #{number}: {_describe(error)}") from None
    return turns


def resolve_script_path(script_file: str, working_dir: str | None) -> Path:
    path = Path(os.path.expanduser(script_file))
    if not path.is_absolute():
        path = Path(working_dir or os.getcwd()) / path
    return path


def load_script_file(path: Path) -> list[TurnSpec]:
    """Read a YAML or JSON script (a list of turns, or a mapping with a ``script`` list)."""
    source = f"script file {path}"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModuleConfigError(f"provider-scripted: script_file {path} does not exist; point script_file at a "
                                "YAML or JSON list of turns") from None
    except OSError as error:
        raise ModuleConfigError(f"provider-scripted: cannot read script_file {path}: {error}") from None
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ModuleConfigError(f"provider-scripted: {source} is not valid JSON (line {error.lineno}, "
                                    f"column {error.colno}: {error.msg})") from None
    else:
        import yaml

        from amplifier_support.yaml_limits import YamlLimitError, safe_load_limited

        try:
            data = safe_load_limited(text)
        except YamlLimitError as error:
            raise ModuleConfigError(f"provider-scripted: {source}: {error}") from None
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
            problem = getattr(error, "problem", None) or str(error)
            raise ModuleConfigError(f"provider-scripted: {source} is not valid YAML{where}: {problem}") from None
    if isinstance(data, dict) and "script" in data:
        data = data["script"]
    return parse_script(data, source)
