"""Structural validation of a orchestrator module as a pytest test (runs OrchestratorValidator)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from amplifier_core.validation import OrchestratorValidator


class OrchestratorStructuralTests:
    @pytest.mark.asyncio
    async def test_structural_validation(self, module_path: Path | None, module_config: dict[str, Any]) -> None:
        if module_path is None:
            pytest.skip("no module under test: run with --module-path=PATH")
        result = await OrchestratorValidator().validate(module_path, config=module_config)
        errors = "\n".join(f"  [{check.name}] {check.message}" for check in result.errors)
        assert result.passed, f"{result.summary()}\n{errors}"


class TestOrchestratorStructure(OrchestratorStructuralTests):
    """Collected when this file is run directly against a orchestrator module (``--module-path``)."""
