"""Puts this directory on sys.path so test files can import ``loop_basic_doubles`` (pytest runs with
--import-mode=importlib, where test directories are not importable), and provides the ``harness`` fixture."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from loop_basic_doubles import Harness, make_harness


@pytest.fixture
def harness() -> Harness:
    return make_harness()
