"""Puts this directory on sys.path (pytest runs with --import-mode=importlib) so tests can import ``hook_lab``,
and provides its fixtures."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from hook_lab import HookLab


@pytest.fixture
def lab(tmp_path: Path) -> HookLab:
    return HookLab(tmp_path / "project", tmp_path / "user-config")


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    """A FIFO nobody writes: a hook that reads it blocks until it is killed."""
    path = tmp_path / "never-written.fifo"
    os.mkfifo(path)
    return path
