"""pytest plugin ``amplifier_module``: fixtures that let module authors test their modules (being written)."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("amplifier", "amplifier module testing")
    group.addoption("--module-path", action="store", default=None, help="Path of the module under test.")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "module_validation: test validates an amplifier module")
