"""Repository-wide pytest setup: shared fixtures live in tests/support (on pythonpath), loaded here once; and the
hypothesis profile (`HYPOTHESIS_PROFILE=thorough` for a long search; by default a short, repeatable one)."""

from __future__ import annotations

import os

from hypothesis import settings

pytest_plugins = ["testkit.bytecode", "fakeapi.fixtures", "testkit.fixtures", "mcptestserver.fixtures"]

# The default run is the suite's: the same examples each time (a failure reproduces), few enough to stay fast.
settings.register_profile("default-run", max_examples=150, derandomize=True, deadline=None)
settings.register_profile("thorough", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default-run"))
