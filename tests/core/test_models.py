"""Behaviour of the kernel's result and metadata models (reference section 3.1, section 13 item 48)."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from pydantic import ValidationError

from amplifier_core.models import (
    ConfigField,
    HookResult,
    ModelInfo,
    ModuleInfo,
    ProviderInfo,
    SessionStatus,
    ToolResult,
)


def test_toolresult_serialized_output_json_and_sanitized() -> None:
    assert ToolResult(output={"a": [1, 2]}).get_serialized_output() == '{"a": [1, 2]}'
    assert ToolResult(output=[1, "x"]).get_serialized_output() == '[1, "x"]'
    dirty = "ok\x00\x07\x1b[0m\x7f\x9f\ud800 tab\there\nnew\rline"
    assert ToolResult(output=dirty).get_serialized_output() == "ok[0m tab\there\nnew\rline"


def test_toolresult_serializes_output_even_when_failed() -> None:
    result = ToolResult(success=False, output="stderr text", error={"message": "exit 1"})
    assert result.get_serialized_output() == "stderr text"


def test_toolresult_serialized_output_without_output() -> None:
    assert ToolResult().get_serialized_output() == "Success"
    assert ToolResult(success=False).get_serialized_output() == "Error: Failed"
    # as 2.0.2: an error without a message is "Unknown error", an empty message stays empty
    assert ToolResult(success=False, error={"code": 3}).get_serialized_output() == "Error: Unknown error"
    assert ToolResult(success=False, error={"message": ""}).get_serialized_output() == "Error: "
    assert str(ToolResult(success=False, error={"message": ""})) == "Error: "


def test_toolresult_serialized_json_is_ascii_escaped_as_2_0_2() -> None:
    """Upstream tests compare the text with ``json.dumps(output)``, whose default escapes non-ASCII."""
    output = {"name": "café ☕"}
    assert ToolResult(output=output).get_serialized_output() == json.dumps(output) == '{"name": "caf\\u00e9 \\u2615"}'


def test_toolresult_hook_presentation_has_2_0_2_key_order() -> None:
    presented = ToolResult(success=False, error={"message": "m", "code": 1}).safe_hook_presentation()
    assert json.dumps(presented) == '{"error": {"code": 1, "message": "m"}, "output": "m", "success": false}'


def test_toolresult_serializes_decimal_as_string() -> None:
    serialized = ToolResult(output={"cost": Decimal("0.10")}).get_serialized_output()
    assert json.loads(serialized) == {"cost": "0.10"}


def test_toolresult_autopopulates_output_from_error_message() -> None:
    result = ToolResult(success=False, error={"message": "boom"})
    assert result.output == "boom"
    assert result.get_serialized_output() == "boom"
    untouched = ToolResult(success=False, output="kept", error={"message": "boom"})
    assert untouched.output == "kept"
    assert ToolResult(success=False, error={"message": ""}).output is None


def test_toolresult_str_forms() -> None:
    assert str(ToolResult(output="hi")) == "hi"
    assert str(ToolResult(output="")) == "Success"
    assert str(ToolResult(success=False, error={"message": "bad"})) == "Error: bad"
    assert str(ToolResult(success=False, error={"code": 1})) == "Error: Unknown error"
    assert str(ToolResult(success=False)) == "Failed"


def test_hookresult_defaults() -> None:
    result = HookResult()
    assert result.action == "continue"
    assert result.data is None and result.reason is None and result.context_injection is None
    assert result.context_injection_role == "system"
    assert result.ephemeral is False
    assert result.approval_prompt is None and result.approval_options is None
    assert result.approval_timeout == 300.0
    assert result.approval_default == "deny"
    assert result.suppress_output is False
    assert result.user_message is None and result.user_message_source is None
    assert result.user_message_level == "info"
    assert result.append_to_last_tool_result is False


@pytest.mark.parametrize(
    "field, value",
    [("action", "explode"), ("context_injection_role", "tool"), ("approval_default", "maybe"),
     ("user_message_level", "debug")],
)
def test_hookresult_rejects_unknown_literal_values(field: str, value: str) -> None:
    with pytest.raises(ValidationError):
        HookResult(**{field: value})


def test_model_info_requires_limits_and_defaults_lists() -> None:
    info = ModelInfo(id="m", display_name="M", context_window=1000, max_output_tokens=100)
    assert info.capabilities == [] and info.defaults == {}
    with pytest.raises(ValidationError):
        ModelInfo(id="m", display_name="M")


def test_provider_info_defaults_and_config_fields() -> None:
    field = ConfigField(id="api_key", display_name="API key", prompt="Key?", field_type="secret")
    info = ProviderInfo(id="p", display_name="P", config_fields=[field])
    assert info.credential_env_vars == [] and info.capabilities == [] and info.defaults == {}
    assert info.config_fields[0].required is True and info.config_fields[0].requires_model is False
    with pytest.raises(ValidationError):
        ConfigField(id="x", display_name="X", prompt="?", field_type="number")


def test_module_info_type_is_constrained() -> None:
    info = ModuleInfo(id="tool-x", name="Tool X", version="1.0.0", type="tool", mount_point="tools",
                      description="d")
    assert info.config_schema is None
    with pytest.raises(ValidationError):
        ModuleInfo(id="x", name="X", version="1", type="widget", mount_point="x", description="d")


def test_session_status_defaults_and_to_dict_excludes_none() -> None:
    status = SessionStatus(session_id="s1")
    assert status.status == "running"
    assert status.total_messages == 0 and status.tool_invocations == 0
    dumped = status.to_dict()
    assert dumped["session_id"] == "s1"
    assert "ended_at" not in dumped and "last_error" not in dumped
    assert isinstance(dumped["started_at"], str)


def test_session_status_cost_rejects_float_and_serializes_as_string() -> None:
    with pytest.raises(ValidationError, match="not float"):
        SessionStatus(session_id="s", cost_usd=0.1)
    assert SessionStatus(session_id="s", cost_usd=Decimal("0.10")).to_dict()["cost_usd"] == "0.10"


def test_session_status_rejects_unknown_status() -> None:
    with pytest.raises(ValidationError):
        SessionStatus(session_id="s", status="paused")


def test_model_info_pricing_is_optional_and_checks_currency() -> None:
    from amplifier_core.models import ModelInfo, Pricing

    info = ModelInfo(id="m", display_name="M", context_window=1000, max_output_tokens=100,
                     pricing=Pricing(input_per_million=3.0, output_per_million=15.0))
    assert info.pricing is not None and info.pricing.currency == "USD" and info.pricing.cache_read_per_million is None
    assert ModelInfo(id="m", display_name="M", context_window=1, max_output_tokens=1).pricing is None
    with pytest.raises(ValidationError, match="ISO 4217"):
        Pricing(input_per_million=1, output_per_million=1, currency="usd")


def test_context_injection_defaults_and_hook_result_list() -> None:
    from amplifier_core.models import ContextInjection, HookResult

    item = ContextInjection(content="c")
    assert (item.role, item.ephemeral, item.append_to_last_tool_result, item.hook_name, item.event) == (
        "system", False, False, "unknown", "")
    assert HookResult().context_injections == []
    assert HookResult(context_injections=[{"content": "y"}]).context_injections == [ContextInjection(content="y")]
