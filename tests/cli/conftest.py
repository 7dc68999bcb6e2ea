"""Helpers for CLI tests: run the Typer app in-process and write YAML files tersely."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result


@pytest.fixture
def cli() -> Callable[..., Result]:
    from amplifier_cli.main import app

    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(app, list(args))

    return invoke


@pytest.fixture
def write() -> Callable[[Path, str], Path]:
    def write_file(path: Path, text: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return write_file


@pytest.fixture
def paths(project_dir: Path):
    from amplifier_cli.config.paths import AmplifierPaths

    return AmplifierPaths.discover()
