"""Core result and metadata models shared by the kernel and every module."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from .sanitize import strip_control_chars


def json_default(value: Any) -> Any:
    """``json.dumps(default=...)`` for what modules put in messages and results: pydantic models as their JSON
    dump, Decimals and anything else as text."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return str(value)


class ToolResult(BaseModel):
    """What a tool returns. ``output`` carries data even on failure (bash puts stderr there)."""

    success: bool = True
    output: Any | None = None
    error: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _output_from_error(self) -> ToolResult:
        if not self.success and self.output is None and self.error and self.error.get("message"):
            self.output = self.error["message"]
        return self

    def __str__(self) -> str:
        if self.success:
            return str(self.output) if self.output else "Success"
        if self.error:
            return f"Error: {self.error.get('message') or 'Unknown error'}"
        return "Failed"

    def get_serialized_output(self) -> str:
        """The text an LLM sees: JSON for dicts/lists, ``str()`` otherwise, sanitized of control characters."""
        if self.output is not None:
            if isinstance(self.output, (dict, list)):
                text = json.dumps(self.output, default=json_default, ensure_ascii=False)
            else:
                text = str(self.output)
            return strip_control_chars(text)
        if not self.success:
            message = (self.error or {}).get("message") or "Failed"
            return strip_control_chars(f"Error: {message}")
        return "Success"


class HookResult(BaseModel):
    """A hook handler's verdict. Precedence when several handlers answer: deny > ask_user > inject_context >
    modify > continue."""

    action: Literal["continue", "deny", "modify", "inject_context", "ask_user"] = "continue"
    data: dict[str, Any] | None = None
    reason: str | None = None
    context_injection: str | None = None
    context_injection_role: Literal["system", "user", "assistant"] = "system"
    ephemeral: bool = False
    approval_prompt: str | None = None
    approval_options: list[str] | None = None
    approval_timeout: float = 300.0
    approval_default: Literal["allow", "deny"] = "deny"
    suppress_output: bool = False
    user_message: str | None = None
    user_message_level: Literal["info", "warning", "error"] = "info"
    user_message_source: str | None = None
    append_to_last_tool_result: bool = False


class ModelInfo(BaseModel):
    id: str
    display_name: str
    context_window: int
    max_output_tokens: int
    capabilities: list[str] = Field(default_factory=list)
    defaults: dict[str, Any] = Field(default_factory=dict)


class ConfigField(BaseModel):
    id: str
    display_name: str
    prompt: str
    field_type: Literal["text", "secret", "choice", "boolean"] = "text"
    env_var: str | None = None
    choices: list[str] | None = None
    required: bool = True
    default: str | None = None
    show_when: dict[str, str] | None = None
    requires_model: bool = False


class ProviderInfo(BaseModel):
    id: str
    display_name: str
    credential_env_vars: list[str] = Field(default_factory=list)
    capabilities: list[str] = Field(default_factory=list)
    defaults: dict[str, Any] = Field(default_factory=dict)
    config_fields: list[ConfigField] = Field(default_factory=list)


class ModuleInfo(BaseModel):
    id: str
    name: str
    version: str
    type: Literal["orchestrator", "provider", "tool", "context", "hook", "resolver"]
    mount_point: str
    description: str
    config_schema: dict[str, Any] | None = None


class SessionStatus(BaseModel):
    """Lifecycle record of one session. The kernel sets ``status``; counters belong to the app."""

    session_id: str
    started_at: datetime = Field(default_factory=datetime.now)
    ended_at: datetime | None = None
    status: Literal["running", "completed", "failed", "cancelled"] = "running"
    total_messages: int = 0
    tool_invocations: int = 0
    tool_successes: int = 0
    tool_failures: int = 0
    total_input_tokens: int = 0
    total_output_tokens: int = 0
    cost_usd: Decimal | None = None
    last_activity: datetime | None = None
    last_error: dict[str, Any] | None = None

    @field_validator("cost_usd", mode="before")
    @classmethod
    def _no_float_cost(cls, value: Any) -> Any:
        if isinstance(value, float):
            raise ValueError("cost_usd must be a Decimal, int or str, not a float (floats lose cents)")
        return value

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)
