"""Typed module config: unknown keys and bad values produce messages naming module, key and a fix."""

from __future__ import annotations

import pytest

from amplifier_core.module_config import ModuleConfig, ModuleConfigError, parse_module_config


class BashConfig(ModuleConfig):
    timeout: int = 30
    working_dir: str | None = None


def test_parse_module_config_returns_typed_config_with_defaults() -> None:
    assert parse_module_config(BashConfig, None, "tool-bash") == BashConfig()
    assert parse_module_config(BashConfig, {"timeout": 5}, "tool-bash").timeout == 5


def test_unknown_key_names_module_key_closest_match_and_valid_keys() -> None:
    with pytest.raises(ModuleConfigError) as caught:
        parse_module_config(BashConfig, {"timout": 5}, "tool-bash")
    assert str(caught.value) == (
        "tool-bash config: unknown key 'timout' (did you mean 'timeout'?); valid keys: timeout, working_dir")


def test_unknown_key_without_close_match_lists_valid_keys_only() -> None:
    with pytest.raises(ModuleConfigError, match=r"unknown key 'colour'; valid keys: timeout, working_dir$"):
        parse_module_config(BashConfig, {"colour": "red"}, "tool-bash")


def test_wrong_type_names_key_and_value() -> None:
    with pytest.raises(ModuleConfigError, match=r"^tool-bash config: 'timeout': .* \(got 'soon'\)$"):
        parse_module_config(BashConfig, {"timeout": "soon"}, "tool-bash")


def test_module_config_error_is_a_value_error() -> None:
    assert issubclass(ModuleConfigError, ValueError)
