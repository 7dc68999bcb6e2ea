"""Trusting a scratch project the way the user does (the real trust store under the test's AMPLIFIER_HOME)."""

from __future__ import annotations

from pathlib import Path


def trust_project_now(project: Path) -> None:
    """Record that the user trusts exactly what ``project`` ships right now (as `amplifier trust --yes`)."""
    from amplifier_cli.config.paths import AmplifierPaths
    from amplifier_cli.config.trust import project_trust, trust_project

    paths = AmplifierPaths.discover(cwd=project)
    if project_trust(paths).needs_trust:
        trust_project(paths, project_trust(paths))


def trust_projects_as_they_are(monkeypatch) -> None:
    """Every trust evaluation in this process first trusts what the project holds at that moment, as a user who
    wrote the project themselves would have: for tests about something else than trust. It goes through the real
    store, so `amplifier` subprocesses started after an evaluation see the project trusted too."""
    from amplifier_cli.config import trust

    real_evaluate = trust.evaluate

    def evaluate_trusting(paths):
        state = real_evaluate(paths)
        if state.needs_trust:
            trust.trust_project(paths, state)
            state = real_evaluate(paths)
        return state

    monkeypatch.setattr(trust, "evaluate", evaluate_trusting)
