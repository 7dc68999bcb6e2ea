"""Structural validation of a provider module as a pytest test (runs ProviderValidator)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from amplifier_core.validation import ProviderValidator


class ProviderStructuralTests:
    @pytest.mark.asyncio
    async def test_structural_validation(self, module_path: Path | None, module_config: dict[str, Any]) -> None:
        if module_path is None:
            pytest.skip("no module under test: run with --module-path=PATH")
        result = await ProviderValidator().validate(module_path, config=module_config)
        errors = "\n".join(f"  [{check.name}] {check.message}" for check in result.errors)
        assert result.passed, f"{result.summary()}\n{errors}"


class TestProviderStructure(ProviderStructuralTests):
    """Collected when this file is run directly against a provider module (``--module-path``)."""
