"""Protocols and approval/display/module-source contracts (reference section 2)."""

from __future__ import annotations

import builtins
from pathlib import Path

import pytest
from pydantic import ValidationError

from amplifier_core import module_sources
from amplifier_core.approval import ApprovalSystem, ApprovalTimeoutError
from amplifier_core.display import DisplaySystem
from amplifier_core.interfaces import (
    ApprovalRequest,
    ApprovalResponse,
    ContextManager,
    Orchestrator,
    Provider,
    Tool,
)


def test_approval_request_rejects_non_positive_timeout_with_value_error() -> None:
    with pytest.raises(ValueError, match="timeout must be positive"):
        ApprovalRequest(tool_name="bash", action="run", risk_level="high", timeout=0)
    with pytest.raises(ValidationError):
        ApprovalRequest(tool_name="bash", action="run", risk_level="high", timeout=-1)


def test_approval_request_and_response_defaults() -> None:
    request = ApprovalRequest(tool_name="bash", action="run", risk_level="low")
    assert request.details == {} and request.timeout is None
    response = ApprovalResponse(approved=True)
    assert response.reason is None and response.remember is False


def test_module_source_errors_shadow_builtin_and_are_not_import_errors() -> None:
    assert module_sources.ModuleNotFoundError is not builtins.ModuleNotFoundError
    assert not issubclass(module_sources.ModuleNotFoundError, ImportError)
    assert not issubclass(module_sources.ModuleLoadError, ImportError)


def test_module_source_is_abstract() -> None:
    with pytest.raises(TypeError):
        module_sources.ModuleSource()

    class Here(module_sources.ModuleSource):
        def resolve(self) -> Path:
            return Path("/tmp")

    assert Here().resolve() == Path("/tmp")


def test_approval_timeout_error_is_plain_exception() -> None:
    assert issubclass(ApprovalTimeoutError, Exception)
    assert not issubclass(ApprovalTimeoutError, TimeoutError)


def test_protocols_are_static_contracts_not_runtime_checks() -> None:
    """As in 2.0.2: modules are duck-typed, so isinstance() against a protocol is refused, not guessed."""
    for protocol in (ContextManager, Orchestrator, DisplaySystem, ApprovalSystem, Provider, Tool):
        with pytest.raises(TypeError, match="runtime_checkable"):
            isinstance(object(), protocol)


def test_tool_protocol_declares_input_schema_defaulting_to_empty() -> None:
    assert Tool.input_schema.fget(object()) == {}  # type: ignore[attr-defined]


def test_file_system_module_source_hands_out_copies() -> None:
    source = module_sources.FileSystemModuleSource(["/a", "/b"])
    paths = source.get_module_paths()
    paths.append("/c")
    assert source.get_module_paths() == ["/a", "/b"]
    assert source.get_mention_mappings() == {} and module_sources.FileSystemModuleSource().get_module_paths() == []
