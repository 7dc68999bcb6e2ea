"""Structural validation of a provider module as a pytest test: runs ProviderValidator on the module under
test (with ``--module-config`` as mount() config when given). Names and fixtures are 2.0.2's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from amplifier_core.validation.structural._config import module_config_of


class ProviderStructuralTests:
    """Subclass in a provider module's tests; the amplifier pytest plugin provides ``module_path``."""

    @pytest.fixture(autouse=True)
    def _module_config(self, request: pytest.FixtureRequest) -> None:
        self._config: dict[str, Any] = module_config_of(request.config)

    @pytest.mark.asyncio
    async def test_structural_validation(self, module_path: Path | None) -> None:
        if module_path is None:
            pytest.skip("no module under test: run in a module repository or with --module-path=PATH")
        from amplifier_core.validation import ProviderValidator

        result = await ProviderValidator().validate(module_path, config=getattr(self, "_config", None))
        if not result.passed:
            errors = "\n".join(f"  [{check.name}] {check.message}" for check in result.errors)
            pytest.fail(f"Structural validation failed:\n{errors}")


class TestProviderStructure(ProviderStructuralTests):
    """Collected when this file is run directly against a provider module (``--module-path``)."""
