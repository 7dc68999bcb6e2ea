"""ProviderValidator: a provider has a name, describes itself and can complete a ChatRequest."""

from __future__ import annotations

from typing import Any

from ..models import ProviderInfo
from .base import (
    ModuleValidator,
    ValidationCheck,
    ValidationResult,
    accepts,
    check_async_method,
    check_on_session_ready,
    import_module_from_path,
)

# the names 2.0.2's module exposes (its validators' helpers are re-exported from each)
__all__ = [
    "ProviderInfo",
    "ProviderValidator",
    "ValidationCheck",
    "ValidationResult",
    "check_on_session_ready",
    "import_module_from_path",
]


class ProviderValidator(ModuleValidator):
    module_type = "provider"
    mount_point = "providers"
    protocol_name = "Provider"
    required_members = ("name", "get_info", "list_models", "complete", "parse_tool_calls")

    async def check_instance(self, name: str, instance: Any, result: ValidationResult) -> None:
        try:
            provider_name = instance.name
        except Exception as error:
            provider_name = None
            result.fail("provider_name", f"Reading provider.name raised {type(error).__name__}: {error}")
        else:
            if isinstance(provider_name, str) and provider_name:
                result.ok("provider_name", f"Provider has name: '{provider_name}'")
            else:
                result.fail("provider_name", f"Provider.name should be a non-empty string, got {provider_name!r}")

        get_info = getattr(instance, "get_info", None)
        if get_info is None or not callable(get_info):
            result.fail("provider_get_info", "get_info() is missing")
        else:
            try:
                info = get_info()
            except Exception as error:
                result.fail("provider_get_info", f"get_info() raised {type(error).__name__}: {error}", "warning")
            else:
                if isinstance(info, ProviderInfo):
                    result.ok("provider_get_info", f"Provider.get_info() returns ProviderInfo (id={info.id!r})")
                else:
                    result.fail("provider_get_info",
                                f"Provider.get_info() should return ProviderInfo, got {type(info).__name__}")

        result.add(check_async_method(instance, "list_models", "provider_list_models",
                                      passed_message="Provider.list_models() is async"))
        result.add(check_async_method(instance, "complete", "provider_complete", object(),
                                      passed_message="Provider.complete() has correct async signature"))

        parse = getattr(instance, "parse_tool_calls", None)
        if parse is None or not callable(parse):
            result.fail("provider_parse_tool_calls", "parse_tool_calls() is missing")
        elif not accepts(parse, object()):
            result.fail("provider_parse_tool_calls", "parse_tool_calls() must take the ChatResponse")
        else:
            result.ok("provider_parse_tool_calls", "Provider.parse_tool_calls() exists and is callable")
