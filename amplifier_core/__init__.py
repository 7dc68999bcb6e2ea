"""amplifier_core: the kernel (mechanism only). Upstream-compatible public names are re-exported here."""

from __future__ import annotations

import importlib
from typing import Any

from . import capabilities
from .cancellation import CancellationState, CancellationToken
from .content_models import (
    ContentBlock,
    ContentBlockType,
    TextContent,
    ThinkingContent,
    ToolCallContent,
    ToolResultContent,
)
from .coordinator import ModuleCoordinator
from .hooks import HookRegistry
from .interfaces import (
    ApprovalProvider,
    ApprovalRequest,
    ApprovalResponse,
    ContextManager,
    HookHandler,
    Orchestrator,
    Provider,
    Tool,
)
from .llm_errors import (
    AbortError,
    AccessDeniedError,
    AuthenticationError,
    ConfigurationError,
    ContentFilterError,
    ContextLengthError,
    InvalidRequestError,
    InvalidToolCallError,
    LLMError,
    LLMTimeoutError,
    NetworkError,
    NotFoundError,
    ProviderUnavailableError,
    QuotaExceededError,
    RateLimitError,
    StreamError,
)
from .loader import ModuleLoader, ModuleValidationError
from .message_models import (
    ChatRequest,
    ChatResponse,
    ContentBlockUnion,
    Degradation,
    ImageBlock,
    Message,
    ReasoningBlock,
    RedactedThinkingBlock,
    ResponseFormat,
    ResponseFormatJson,
    ResponseFormatJsonSchema,
    ResponseFormatText,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
    Usage,
)
from .models import (
    ConfigField,
    ContextInjection,
    HookResult,
    ModelInfo,
    ModuleInfo,
    Pricing,
    ProviderInfo,
    SessionStatus,
    ToolResult,
)
from .session import AmplifierSession, ModuleFailure
from .utils.retry import RetryConfig, classify_error_message, retry_with_backoff

__version__ = "1.0.0"

# 2.0.2 backs these four with a Rust engine and also exports them under their engine names (its __init__
# does `from ._engine import RustCoordinator as ModuleCoordinator`, and so on); code that imports the engine
# names gets the same (pure-Python) classes here. No engine: RUST_AVAILABLE is False.
RUST_AVAILABLE = False
RustSession = AmplifierSession
RustCoordinator = ModuleCoordinator
RustHookRegistry = HookRegistry
RustCancellationToken = CancellationToken

# Test helpers import unittest.mock; load them only when asked for.
_TESTING_NAMES = {
    "TestCoordinator", "MockCoordinator", "MockTool", "MockContextManager", "EventRecorder",
    "ScriptedOrchestrator", "create_test_coordinator", "wait_for",
}


def __getattr__(name: str) -> Any:
    if name in _TESTING_NAMES or name == "testing":
        testing = importlib.import_module(f"{__name__}.testing")
        return testing if name == "testing" else getattr(testing, name)
    raise AttributeError(f"module 'amplifier_core' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_TESTING_NAMES, "testing"})


__all__ = [
    "RUST_AVAILABLE",
    "AbortError",
    "AccessDeniedError",
    "AmplifierSession",
    "ApprovalProvider",
    "ApprovalRequest",
    "ApprovalResponse",
    "AuthenticationError",
    "CancellationState",
    "CancellationToken",
    "ChatRequest",
    "ChatResponse",
    "ConfigField",
    "ConfigurationError",
    "ContentBlock",
    "ContentBlockType",
    "ContentBlockUnion",
    "ContentFilterError",
    "ContextInjection",
    "ContextLengthError",
    "ContextManager",
    "Degradation",
    "EventRecorder",
    "HookHandler",
    "HookRegistry",
    "HookResult",
    "ImageBlock",
    "InvalidRequestError",
    "InvalidToolCallError",
    "LLMError",
    "LLMTimeoutError",
    "Message",
    "MockContextManager",
    "MockCoordinator",
    "MockTool",
    "ModelInfo",
    "ModuleCoordinator",
    "ModuleFailure",
    "ModuleInfo",
    "ModuleLoader",
    "ModuleValidationError",
    "NetworkError",
    "NotFoundError",
    "Orchestrator",
    "Pricing",
    "Provider",
    "ProviderInfo",
    "ProviderUnavailableError",
    "QuotaExceededError",
    "RateLimitError",
    "ReasoningBlock",
    "RedactedThinkingBlock",
    "ResponseFormat",
    "ResponseFormatJson",
    "ResponseFormatJsonSchema",
    "ResponseFormatText",
    "RetryConfig",
    "RustCancellationToken",
    "RustCoordinator",
    "RustHookRegistry",
    "RustSession",
    "ScriptedOrchestrator",
    "SessionStatus",
    "StreamError",
    "TestCoordinator",
    "TextBlock",
    "TextContent",
    "ThinkingBlock",
    "ThinkingContent",
    "Tool",
    "ToolCall",
    "ToolCallBlock",
    "ToolCallContent",
    "ToolResult",
    "ToolResultBlock",
    "ToolResultContent",
    "ToolSpec",
    "Usage",
    "capabilities",
    "classify_error_message",
    "create_test_coordinator",
    "retry_with_backoff",
    "wait_for",
]
