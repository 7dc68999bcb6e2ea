"""Helpers for CLI tests: run the Typer app in-process, write YAML files tersely, point provider-anthropic at the
fake API server."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result


@pytest.fixture
def cli() -> Callable[..., Result]:
    from amplifier_cli.main import app_for

    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(app_for(list(args)), list(args))  # as the console script builds it

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


@pytest.fixture
def anthropic_env(fake_api: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """provider-anthropic talks to this test's fake API server with a dummy key."""
    from testkit.agent_profiles import DUMMY_KEY

    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", DUMMY_KEY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return fake_api


@pytest.fixture(autouse=True)
def own_project_trusted(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests play the user's own project: what it ships is trusted as it is (tests marked `untrusted`, and
    tests/e2e/test_trust.py, play a stranger's repository)."""
    if request.node.get_closest_marker("untrusted") is None:
        from testkit.trust import trust_projects_as_they_are

        trust_projects_as_they_are(monkeypatch)
