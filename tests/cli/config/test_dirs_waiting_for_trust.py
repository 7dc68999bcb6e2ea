"""`allowed-dirs list` / `denied-dirs list` in a project the user has not trusted: the project's entries are not
applied, and the listing names them and says how to trust instead of "None set."."""

from __future__ import annotations

import json

import pytest
from testkit.trust import trust_project_now


@pytest.mark.untrusted
def test_untrusted_project_entries_are_named_as_waiting_for_trust_then_apply_once_trusted(cli, project_dir,
                                                                                         write) -> None:
    write(project_dir / ".amplifier" / "settings.yaml", "allowed_dirs: [/srv/shared]\ndenied_dirs: [/srv/x]\n")
    write(project_dir / ".amplifier" / "settings.local.yaml", "allowed_dirs: [/srv/mine]\n")

    result = cli("allowed-dirs", "list")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "None set." not in text
    assert "2 entries of this project wait for trust" in text and "`amplifier trust`" in text
    assert "/srv/shared (project)" in text and "/srv/mine (local)" in text
    rows = json.loads(cli("denied-dirs", "list", "--json").output)
    assert rows == [{"path": "/srv/x", "scope": "project", "applies": False}]

    trust_project_now(project_dir)
    trusted = " ".join(cli("allowed-dirs", "list").output.split())
    assert "wait for trust" not in trusted and "/srv/shared" in trusted and "/srv/mine" in trusted
    assert json.loads(cli("denied-dirs", "list", "--json").output) == [
        {"path": "/srv/x", "scope": "project", "applies": True}]


def test_nothing_anywhere_still_says_none_set(cli, project_dir) -> None:
    result = cli("allowed-dirs", "list")
    assert result.exit_code == 0 and "None set." in result.output
