"""Core result and metadata models shared by the kernel and every module."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator, model_serializer

from .message_models import ImageBlock, TextBlock, _cost_as_text, _reject_float
from .sanitize import strip_control_chars
from .tool_result_content import hook_safe_content, normalize_tool_result_content


def json_default(value: Any) -> Any:
    """``json.dumps(default=...)`` for what modules put in messages and results: pydantic models as their JSON
    dump, Decimals and anything else as text."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return str(value)


def _tool_output_default(value: Any) -> Any:
    """Like :func:`json_default` for Decimals and pydantic models, but an unknown object is an error (as in
    2.0.2): a tool must return data, and ``str()`` of an arbitrary object would hide that it did not."""
    if isinstance(value, (Decimal, BaseModel)):
        return json_default(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class ToolResult(BaseModel):
    """What a tool returns. ``output`` carries data even on failure (bash puts stderr there).

    ``content`` holds rich blocks (text, base64 images) for the model; it is normalised on the way in, on
    assignment and on the way out (see :mod:`amplifier_core.tool_result_content`), and left out of dumps
    when empty so results without it serialise as they always did.
    """

    model_config = ConfigDict(hide_input_in_errors=True, validate_assignment=True)

    success: bool = True
    output: Any | None = None
    error: dict[str, Any] | None = None
    content: list[TextBlock | ImageBlock] | None = None

    @field_validator("content", mode="before")
    @classmethod
    def normalize_content(cls, content: Any) -> Any:
        return normalize_tool_result_content(content)

    @field_serializer("content", when_used="unless-none")
    def serialize_content(self, content: list[TextBlock | ImageBlock]) -> list[dict[str, Any]]:
        return normalize_tool_result_content(content) or []

    @model_serializer(mode="wrap")
    def serialize_model(self, handler: Any) -> Any:
        result = handler(self)
        if not self.content and isinstance(result, dict):
            result.pop("content", None)
        return result

    def model_post_init(self, context: Any, /) -> None:
        # The model reads ``output``: a failure that only filled ``error`` still says what went wrong.
        if not self.success and self.output is None and self.error and self.error.get("message"):
            self.output = self.error["message"]

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> ToolResult:
        """Copies are validated too, so ``update`` cannot slip unchecked content past the boundary."""
        data = self.model_dump()
        if update:
            data.update(update)
        return type(self).model_validate(data)

    def safe_hook_presentation(self) -> dict[str, Any]:
        """The result as hook events carry it: images replaced by a note, JSON-safe."""
        payload: dict[str, Any] = {
            "success": self.success,
            "output": json.loads(json.dumps(self.output, default=json_default)),
            "error": json.loads(json.dumps(self.error, default=json_default)),
        }
        if self.content is not None:
            payload["content"] = hook_safe_content(self.serialize_content(self.content))
        return json.loads(json.dumps(payload, sort_keys=True))  # key order as 2.0.2's (its engine sorts keys)

    def __str__(self) -> str:
        if self.success:
            return str(self.output) if self.output else "Success"
        if self.error:
            return f"Error: {self.error.get('message', 'Unknown error')}"
        return "Failed"

    def get_serialized_output(self) -> str:
        """The text an LLM sees: JSON for dicts/lists, ``str()`` otherwise, sanitized of control characters.

        A result that carries only rich ``content`` (no ``output``) is shown as its text blocks, with a
        placeholder per image, so orchestrators that send text reach the model with it (2.0.2 says "Success").
        """
        if self.output is None and self.content:
            parts = [block.text if isinstance(block, TextBlock)
                     else f"[image: {block.source.get('media_type', 'image')}]" for block in self.content]
            return strip_control_chars("\n\n".join(parts))
        if self.output is not None:
            if isinstance(self.output, (dict, list)):
                text = json.dumps(self.output, default=_tool_output_default)  # ASCII-escaped, as 2.0.2's
            else:
                text = str(self.output)
            return strip_control_chars(text)
        if not self.success:
            return f"Error: {self.error.get('message', 'Unknown error') if self.error else 'Failed'}"
        return "Success"


class ContextInjection(BaseModel):
    """One injection from one hook; the registry stamps ``hook_name`` and ``event`` when it merges."""

    content: str
    role: Literal["system", "user", "assistant"] = "system"
    ephemeral: bool = False
    append_to_last_tool_result: bool = False
    hook_name: str = "unknown"
    event: str = ""


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
    context_injections: list[ContextInjection] = Field(default_factory=list)
    """Ordered, lossless injections; the registry projects the scalar ``context_injection*`` fields from them."""


class Pricing(BaseModel):
    """List prices per million tokens, for display. Accounting uses ``Usage.cost_usd`` (a Decimal)."""

    input_per_million: float
    output_per_million: float
    cache_read_per_million: float | None = None
    cache_write_per_million: float | None = None
    currency: str = "USD"

    @field_validator("currency")
    @classmethod
    def _iso_currency(cls, value: str) -> str:
        if not re.fullmatch(r"[A-Z]{3}", value):
            raise ValueError(f"currency must be a 3-letter ISO 4217 code, got {value!r}")
        return value


class ModelInfo(BaseModel):
    id: str
    display_name: str
    context_window: int
    max_output_tokens: int
    capabilities: list[str] = Field(default_factory=list)
    defaults: dict[str, Any] = Field(default_factory=dict)
    pricing: Pricing | None = None


class ConfigField(BaseModel):
    id: str
    display_name: str
    field_type: Literal["text", "secret", "choice", "boolean"] = "text"
    prompt: str
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


ModuleKind = Literal["orchestrator", "provider", "tool", "context", "hook", "resolver"]


class ModuleInfo(BaseModel):
    id: str
    name: str
    version: str
    type: ModuleKind
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
    def reject_float_cost_usd(cls, v: Any) -> Any:
        return _reject_float(v)

    @field_serializer("cost_usd", when_used="always")
    def serialize_cost_usd(self, v: Decimal | None) -> str | None:
        """A string on every dump path (plain and JSON): exact, and safe to put in an event."""
        return _cost_as_text(v)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)
