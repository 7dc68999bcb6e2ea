"""The sandbox modes, written once: names, order, the shorthand of a `sandbox:` value."""

from __future__ import annotations

import pytest

from amplifier_support.sandbox import SandboxPolicy
from amplifier_support.sandbox.settings import SandboxSettings
from amplifier_support.sandbox_modes import MODES, mode_of, normalize_sandbox_value, parse_mode


def test_modes_default_first_and_yaml_off_reads_as_off() -> None:
    assert MODES == ("workspace-write", "read-only", "off")
    assert parse_mode(False) == "off" and parse_mode("read-only") == "read-only"
    with pytest.raises(ValueError, match="use one of workspace-write, read-only, off"):
        parse_mode("readonly")


def test_every_reader_takes_the_same_shorthand() -> None:
    assert normalize_sandbox_value("read-only") == {"mode": "read-only"}
    assert normalize_sandbox_value({"mode": False, "network": False}) == {"mode": "off", "network": False}
    assert mode_of(False) == "off" and mode_of({"network": False}) is None
    assert SandboxSettings.model_validate(False).mode == "off"
    with pytest.raises(ValueError, match="use one of workspace-write, read-only, off"):
        SandboxPolicy(mode="everything")  # type: ignore[arg-type]
