"""pytest fixture `fake_api`: a fresh FakeAPIServer per test, stopped (and its held streams released) after."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fakeapi.server import FakeAPIServer


@pytest.fixture
def fake_api() -> Iterator[FakeAPIServer]:
    """A running fake API server; script it with `fake_api.add(Turn(...))`, point SDKs at its base URLs."""
    with FakeAPIServer() as server:
        yield server
