"""Shared test fixtures: scratch AMPLIFIER_HOME, git repositories (placeholder)."""
