"""MountPlanValidator: structural checks of a mount plan before anything is loaded (reference §8, §13 item 52)."""

from __future__ import annotations

from typing import Any

import pytest

from amplifier_core.validation import MountPlanValidator

MINIMAL = {
    "session": {"orchestrator": {"module": "loop-basic"}, "context": {"module": "context-simple"}},
    "providers": [{"module": "provider-mock"}],
}


def validate(plan: Any):
    return MountPlanValidator().validate(plan)


def failed_names(result) -> set[str]:
    return {check.name for check in result.errors}


def test_mount_plan_validator_minimal_dict_form_plan_passes() -> None:
    result = validate(MINIMAL)
    assert result.passed
    assert result.errors == [] and result.warnings == []
    assert result.summary().startswith("PASSED: ")
    assert result.format_errors() == "No errors"


@pytest.mark.parametrize("field", ["orchestrator", "context"])
def test_mount_plan_validator_string_session_module_is_not_a_dict_spec_as_in_2_0_2(field: str) -> None:
    plan = {**MINIMAL, "session": {**MINIMAL["session"], field: "just-a-string"}}
    result = validate(plan)
    assert failed_names(result) == {f"session.{field}_type"}
    assert "must be a dict" in result.errors[0].message and f"session.{field}" in result.errors[0].message


def test_mount_plan_validator_top_level_orchestrator_and_context_sections_only_warn() -> None:
    plan = {**MINIMAL, "orchestrator": {"config": {}}, "context": {"config": {"max_tokens": 1}}}
    result = validate(plan)
    assert result.passed
    (warning,) = result.warnings
    assert "context" in warning.message and "orchestrator" in warning.message and "ignored" in warning.message


@pytest.mark.parametrize("plan", [None, "session: x", ["session"], 42])
def test_mount_plan_validator_none_or_non_dict_fails_and_stops(plan: Any) -> None:
    result = validate(plan)
    assert not result.passed
    assert [check.name for check in result.checks] == ["root_type"]
    assert "must be a dict" in result.errors[0].message


def test_mount_plan_validator_missing_session_fails() -> None:
    result = validate({"providers": []})
    assert "session_present" in failed_names(result)


def test_mount_plan_validator_non_dict_session_fails() -> None:
    result = validate({"session": "loop-basic"})
    assert failed_names(result) == {"session_type"}
    assert "Session" in result.errors[0].message and "dict" in result.errors[0].message


@pytest.mark.parametrize("field", ["orchestrator", "context"])
def test_mount_plan_validator_missing_orchestrator_or_context_fails(field: str) -> None:
    session = dict(MINIMAL["session"])
    del session[field]
    result = validate({**MINIMAL, "session": session})
    assert failed_names(result) == {f"session_{field}_present"}
    assert f"session.{field}" in result.errors[0].message


def test_mount_plan_validator_spec_without_module_says_missing_and_shows_expected_shape() -> None:
    result = validate({**MINIMAL, "tools": [{"config": {"x": 1}}]})
    (error,) = result.errors
    assert error.name == "tools[0]_module_required"
    assert "missing" in error.message.lower()
    assert "expected" in error.message.lower() and "'module'" in error.message
    assert "{'config': {'x': 1}}" in error.message  # the spec that was received


def test_mount_plan_validator_session_spec_without_module_fails_at_its_path() -> None:
    plan = {"session": {"orchestrator": {"source": "./x"}, "context": {"module": "context-simple"}}}
    assert failed_names(validate(plan)) == {"session.orchestrator_module_required"}


@pytest.mark.parametrize(
    ("entry", "check_name"),
    [
        ({"module": "tool-bash", "config": ["not", "a", "dict"]}, "tools[0]_config_type"),
        ({"module": "tool-bash", "config": "x"}, "tools[0]_config_type"),
        ({"module": "tool-bash", "config": None}, "tools[0]_config_type"),  # 2.0.2: present means a dict
        ({"module": "tool-bash", "source": 7}, "tools[0]_source_type"),
        ({"module": ""}, "tools[0]_module_empty"),
        ({"module": "   "}, "tools[0]_module_empty"),
        ({"module": 5}, "tools[0]_module_type"),
        ("tool-bash", "tools[0]_type"),
    ],
)
def test_mount_plan_validator_bad_module_spec_fails(entry: Any, check_name: str) -> None:
    result = validate({**MINIMAL, "tools": [entry]})
    assert check_name in failed_names(result)
    assert not result.passed and "tools[0]" in result.errors[0].message


def test_mount_plan_validator_non_dict_spec_message_says_must_be_a_dict() -> None:
    (error,) = validate({**MINIMAL, "providers": [{"module": "provider-mock"}, "provider-x"]}).errors
    assert error.name == "providers[1]_type" and "must be a dict" in error.message


@pytest.mark.parametrize("section", ["providers", "tools", "hooks"])
def test_mount_plan_validator_non_list_module_section_fails(section: str) -> None:
    result = validate({**MINIMAL, section: {"module": "x"}})
    assert failed_names(result) == {f"{section}_type"}


def test_mount_plan_validator_empty_list_is_informational() -> None:
    result = validate({**MINIMAL, "hooks": []})
    assert result.passed
    assert any(check.name == "hooks_empty" and check.severity == "info" for check in result.checks)


def test_mount_plan_validator_unknown_section_gives_only_a_warning() -> None:
    result = validate({**MINIMAL, "extras": {"a": 1}})
    assert result.passed
    (warning,) = result.warnings
    assert warning.name == "unknown_sections" and "extras" in warning.message
    assert result.summary().endswith("(0 errors, 1 warnings)")


def test_mount_plan_validator_ignores_agents_section() -> None:
    plan = {**MINIMAL, "agents": {"helper": {"description": "x", "tools": "not even a list", "system": 3}}}
    result = validate(plan)
    assert result.passed and result.warnings == []
    assert not any(check.name.startswith("agents") for check in result.checks)


@pytest.mark.parametrize("value", [-1, "100", 1.5, True])
def test_mount_plan_validator_rejects_bad_injection_limits(value: Any) -> None:
    plan = {**MINIMAL, "session": {**MINIMAL["session"], "injection_size_limit": value}}
    assert failed_names(validate(plan)) == {"session.injection_size_limit_type"}


def test_mount_plan_validation_summary_and_format_errors_number_each_error() -> None:
    result = validate({"session": {}, "tools": "x"})
    assert result.summary().startswith("FAILED: ")
    assert "(3 errors, 0 warnings)" in result.summary()
    text = result.format_errors()
    lines = text.splitlines()
    assert lines[:2] == ["Mount Plan Validation Failed:", ""]
    assert lines[2].startswith("  1. [session_orchestrator_present] ")
    assert lines[4].startswith("  3. [tools_type] ")
    assert lines[-2:] == ["", "Total: 3 error(s)"]
