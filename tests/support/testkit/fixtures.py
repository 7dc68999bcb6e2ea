"""Fixtures shared by the whole suite (registered in the repo's conftest.py).

`amplifier_home` is autouse: every test gets its own AMPLIFIER_HOME and HOME, so nothing ever reads or
writes the real user's settings, sessions or caches."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.git_repos import GitRepoFactory


@pytest.fixture(autouse=True)
def amplifier_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh AMPLIFIER_HOME (config/, data/, cache/ created on demand) and a scratch HOME."""
    base = tmp_path_factory.mktemp("amplifier-home")
    home = base / "home"
    home.mkdir()
    monkeypatch.setenv("AMPLIFIER_HOME", str(base / "amplifier"))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(home / f".{name.lower()}"))
    for name in list(__import__("os").environ):
        if name.startswith("AMPLIFIER_MODULE_"):
            monkeypatch.delenv(name)
    yield base / "amplifier"


@pytest.fixture(autouse=True)
def forget_packages_imported_from_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Validation imports a module under its real name (the canonical object the loader will mount, as
    2.0.2 does), so a package a test wrote under the temp dir stays in sys.modules; drop those afterwards so
    a later test can write a same-named package elsewhere."""
    last = next(reversed(sys.modules))
    yield
    temp_root = str(tmp_path_factory.getbasetemp())
    for name in _imported_since(last):
        if str(getattr(sys.modules.get(name), "__file__", None) or "").startswith(temp_root):
            del sys.modules[name]


def _imported_since(last: str) -> list[str]:
    """The names added to sys.modules after ``last``: a dict keeps insertion order, so they are at its end. Most
    tests import nothing, and this stops at once instead of comparing thousands of names twice per test."""
    added: list[str] = []
    for name in reversed(sys.modules):
        if name == last:
            break
        added.append(name)
    return added


@pytest.fixture
def project_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project directory with an empty `.amplifier/`, made the current directory."""
    project = tmp_path / "project"
    (project / ".amplifier").mkdir(parents=True)
    monkeypatch.chdir(project)
    return project


@pytest.fixture
def git_repos(tmp_path: Path) -> GitRepoFactory:
    """Make local bare git repositories (with tags and branches) to use as `git+file://` module sources."""
    return GitRepoFactory(tmp_path / "git-remotes")
