"""loop-streaming runs loop-basic's AgentLoop, so its tests reuse loop-basic's test doubles: this puts
modules/loop-basic/tests on sys.path (pytest's importlib mode does not) and provides ``harness``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "loop-basic" / "tests"))

from loop_basic_doubles import Harness, make_harness


@pytest.fixture
def harness() -> Harness:
    return make_harness()
