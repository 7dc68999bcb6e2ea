"""Repository-wide pytest setup: shared fixtures live in tests/support (on pythonpath), loaded here once."""

pytest_plugins = ["fakeapi.fixtures", "testkit.fixtures"]
