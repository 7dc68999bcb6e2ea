"""Every name upstream exports at top level is importable from ``amplifier_core`` (reference section 1)."""

from __future__ import annotations

import importlib

import amplifier_core

UPSTREAM_TOP_LEVEL = """
AmplifierSession CancellationState CancellationToken ModuleCoordinator ModuleLoader ModuleValidationError
HookRegistry ToolCall ToolResult HookResult ConfigField ModelInfo ModuleInfo ProviderInfo SessionStatus
ApprovalRequest ApprovalResponse Orchestrator Provider Tool ContextManager HookHandler ApprovalProvider
ChatRequest ChatResponse Message TextBlock ThinkingBlock RedactedThinkingBlock ToolCallBlock ToolResultBlock
ImageBlock ReasoningBlock ToolSpec Usage Degradation ResponseFormat ResponseFormatText ResponseFormatJson
ResponseFormatJsonSchema LLMError RateLimitError AuthenticationError ContextLengthError ContentFilterError
InvalidRequestError ProviderUnavailableError LLMTimeoutError AbortError AccessDeniedError ConfigurationError
InvalidToolCallError NetworkError NotFoundError QuotaExceededError StreamError ContentBlock ContentBlockType
TextContent ThinkingContent ToolCallContent ToolResultContent RetryConfig retry_with_backoff
classify_error_message TestCoordinator MockTool MockContextManager EventRecorder ScriptedOrchestrator
create_test_coordinator wait_for capabilities
""".split()


def test_every_upstream_top_level_name_importable() -> None:
    missing = [name for name in UPSTREAM_TOP_LEVEL if not hasattr(amplifier_core, name)]
    assert missing == []
    assert set(UPSTREAM_TOP_LEVEL) <= set(amplifier_core.__all__)


def test_all_lists_only_importable_names() -> None:
    assert [name for name in amplifier_core.__all__ if not hasattr(amplifier_core, name)] == []


def test_hook_handler_export_is_the_protocol() -> None:
    from amplifier_core.interfaces import HookHandler

    assert amplifier_core.HookHandler is HookHandler


def test_mock_coordinator_and_test_coordinator_are_the_same_class() -> None:
    assert amplifier_core.MockCoordinator is amplifier_core.TestCoordinator
    assert issubclass(amplifier_core.TestCoordinator, amplifier_core.ModuleCoordinator)


def test_unknown_top_level_name_raises_attribute_error() -> None:
    try:
        amplifier_core.NoSuchThing  # noqa: B018
    except AttributeError as error:
        assert "NoSuchThing" in str(error)
    else:
        raise AssertionError("expected AttributeError")


def test_submodules_importable_and_version() -> None:
    for name in ("approval", "display", "module_sources", "utils", "validation", "testing", "events",
                 "capabilities", "llm_errors", "message_models", "content_models"):
        importlib.import_module(f"amplifier_core.{name}")
    assert amplifier_core.__version__ == "1.0.0"
    assert not hasattr(amplifier_core, "ApprovalSystem") and not hasattr(amplifier_core, "DisplaySystem")


def test_retry_utilities_reexported_from_utils_and_top_level() -> None:
    from amplifier_core.utils import RetryConfig, classify_error_message, retry_with_backoff

    assert amplifier_core.RetryConfig is RetryConfig
    assert amplifier_core.retry_with_backoff is retry_with_backoff
    assert amplifier_core.classify_error_message is classify_error_message


def test_submodules_declare_all_with_2_0_2_s_names() -> None:
    """``from amplifier_core.<module> import *`` gives at least what 2.0.2's gives."""
    import importlib

    expected = {
        "cancellation": {"CancellationToken", "CancellationState"},
        "capabilities": {"TOOLS", "STREAMING", "BATCH", "ALL_WELL_KNOWN_CAPABILITIES"},
        "coordinator": {"ModuleCoordinator"},
        "events": {"SESSION_START", "PROVIDER_THROTTLE", "MODULE_LOAD_FAILED", "ALL_EVENTS"},
        "hooks": {"HookRegistry", "ContextInjection", "HookResult"},
    }
    for name, names in expected.items():
        module = importlib.import_module(f"amplifier_core.{name}")
        assert names <= set(module.__all__), name
        assert all(hasattr(module, item) for item in module.__all__), name
