"""Trusting a scratch project the way the user does (the real trust store under the test's AMPLIFIER_HOME)."""

from __future__ import annotations

from pathlib import Path


def trust_project_now(project: Path) -> None:
    """Record that the user trusts exactly what ``project`` ships right now (as `amplifier trust --yes`)."""
    from amplifier_cli.config.paths import AmplifierPaths
    from amplifier_cli.config.trust import trust_project

    paths = AmplifierPaths.discover(cwd=project)
    if paths.trust.needs_trust:
        trust_project(paths, paths.trust)
