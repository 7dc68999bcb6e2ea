"""Puts this directory on sys.path (pytest runs with --import-mode=importlib) so tests can import ``hook_lab``,
and provides its fixtures."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from hook_lab import HookLab


@pytest.fixture
async def lab(tmp_path: Path) -> AsyncIterator[HookLab]:
    hook_lab = HookLab(tmp_path / "project", tmp_path / "user-config")
    yield hook_lab
    await hook_lab.close()


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    """A FIFO nobody writes: a hook that reads it blocks until it is killed."""
    path = tmp_path / "never-written.fifo"
    os.mkfifo(path)
    return path
