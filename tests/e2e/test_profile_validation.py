"""`profile list` and `profile use` run the validation `run` does: a profile with a missing key, an unknown field or
an unknown module is listed as invalid with its problem, and `profile use` refuses it (exit 2, nothing written).
An unknown module id gets a did-you-mean, as unknown keys do."""

from __future__ import annotations

import json

import pytest

BASE = "profile: {{name: {name}}}\n"
LOOP = "session: {orchestrator: {module: loop-basic}, context: {module: context-simple}}\n"
PROVIDER = "providers: [{module: provider-scripted, config: {script: [hi]}}]\n"

BROKEN = {
    "missing-key": ("session: {context: {module: context-simple}}\n" + PROVIDER, "session.orchestrator"),
    "unknown-field": (LOOP + PROVIDER + "toolz: []\n", "unknown key 'toolz'"),
    "unknown-module": (LOOP + PROVIDER + "tools: [{module: tool-filesystm}]\n", "did you mean 'tool-filesystem'?"),
}


@pytest.fixture
def profiles(e2e):
    folder = e2e.project / ".amplifier" / "profiles"
    folder.mkdir(parents=True, exist_ok=True)
    for name, (body, _) in BROKEN.items():
        (folder / f"{name}.yaml").write_text(BASE.format(name=name) + body)
    fine = BASE.format(name="fine") + LOOP + PROVIDER + "tools: [{module: tool-filesystem}]\n"
    (folder / "fine.yaml").write_text(fine)
    return e2e


def test_profile_list_marks_profiles_that_run_would_refuse_as_invalid(profiles) -> None:
    result = profiles.run("profile", "list", "--json")
    assert result.returncode == 0, result.stderr
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    for name, (_, problem) in BROKEN.items():
        assert rows[name]["status"] == "invalid", rows[name]
        assert any(problem in line for line in rows[name]["problems"]), rows[name]["problems"]
        run = profiles.run("run", "-P", name, "hello")  # the same verdict as run
        assert run.returncode == 2 and problem in run.stderr
    assert rows["fine"]["status"] == "" and rows["fine"]["problems"] == []
    table = profiles.run("profile", "list")
    assert table.returncode == 0 and "invalid" in table.stdout and "Traceback" not in table.stderr


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_profile_use_refuses_an_invalid_profile_and_writes_no_settings(profiles, name) -> None:
    result = profiles.run("profile", "use", name, "--project")
    assert result.returncode == 2
    assert BROKEN[name][1] in result.stderr and "Traceback" not in result.stderr
    assert not (profiles.project / ".amplifier" / "settings.yaml").exists()
    used = profiles.run("profile", "use", "fine", "--project")
    assert used.returncode == 0, used.stderr
