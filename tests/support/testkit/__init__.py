"""Shared test support: a scratch AMPLIFIER_HOME for every test (autouse), a project directory, and local
git repositories with tags and branches for module-source tests."""
