"""The protocols modules implement. Validation checks attributes rather than ``isinstance`` because
runtime protocol checks with properties are unreliable across Python versions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, Field, field_validator

from .message_models import ChatRequest, ChatResponse, ToolCall
from .models import HookResult, ModelInfo, ProviderInfo, ToolResult

if TYPE_CHECKING:
    from .hooks import HookRegistry


class Orchestrator(Protocol):
    async def execute(
        self,
        prompt: str,
        context: ContextManager,
        providers: dict[str, Provider],
        tools: dict[str, Tool],
        hooks: HookRegistry,
        **kwargs: Any,
    ) -> str: ...


class Provider(Protocol):
    @property
    def name(self) -> str: ...

    def get_info(self) -> ProviderInfo: ...

    async def list_models(self) -> list[ModelInfo]: ...

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse: ...

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]: ...


class Tool(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def input_schema(self) -> dict[str, Any]:
        """JSON Schema of the tool's input; ``{}`` for tools that predate the convention."""
        return {}

    async def execute(self, input: dict[str, Any]) -> ToolResult: ...


class ContextManager(Protocol):
    async def add_message(self, message: dict[str, Any]) -> None: ...

    async def get_messages_for_request(
        self, token_budget: int | None = None, provider: Any | None = None
    ) -> list[dict[str, Any]]: ...

    async def get_messages(self) -> list[dict[str, Any]]: ...

    async def set_messages(self, messages: list[dict[str, Any]]) -> None: ...

    async def clear(self) -> None: ...


class HookHandler(Protocol):
    async def __call__(self, event: str, data: dict[str, Any]) -> HookResult: ...


class ApprovalRequest(BaseModel):
    tool_name: str
    action: str
    details: dict[str, Any] = Field(default_factory=dict)
    risk_level: str
    timeout: float | None = None

    @field_validator("timeout")
    @classmethod
    def _positive_timeout(cls, value: float | None) -> float | None:
        if value is not None and value <= 0:
            raise ValueError("timeout must be positive (or None for no timeout)")
        return value


class ApprovalResponse(BaseModel):
    approved: bool
    reason: str | None = None
    remember: bool = False


class ApprovalProvider(Protocol):
    async def request_approval(self, request: ApprovalRequest) -> ApprovalResponse: ...
