"""Which modules are installed is read from one kept scan of the `amplifier.modules` entry points: a scan reads
every installed distribution's metadata (15-20 ms here), and `provider list` alone asked five times."""

from __future__ import annotations

import importlib.metadata

import pytest

from amplifier_cli.config.module_facts import installed_provider_facts
from amplifier_cli.config.provider_settings import installed_providers
from amplifier_cli.plans.module_preflight import _known_module_ids
from amplifier_core.loader import clear_entry_point_cache, installed_entry_point


def test_the_app_and_the_loader_share_one_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    scans: list[object] = []
    real = importlib.metadata.entry_points

    def counting(**selection: object) -> object:
        scans.append(selection)
        return real(**selection)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.metadata, "entry_points", counting)
    clear_entry_point_cache()
    assert "anthropic" in installed_provider_facts() and "anthropic" in installed_providers()
    assert "tool-bash" in _known_module_ids() and installed_entry_point("tool-mcp") is not None
    assert len(scans) == 1
