"""Bundles through the installed `amplifier` command: `run -P <bundle>` runs a turn with the scripted provider
(includes from a local path and a local bare git repository), `profile show/list/use` know bundles, and
include errors exit 2 with file, line and key path, without a traceback."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest
from warmstart import amplifier_command

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "bundles"


def _amplifier(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    from testkit.trust import trust_project_now

    trust_project_now(cwd)  # the user's own project
    return subprocess.run([*amplifier_command(), *args], cwd=cwd, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120, check=False)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


@pytest.fixture
def app_bundle(project_dir: Path, git_repos) -> Path:
    """`.amplifier/profiles/app.md`: includes basekit from a local bare git repo and a behaviour by path."""
    remote = git_repos.make("amplifier-bundle-basekit")
    source = FIXTURES / "basekit"
    remote.commit({str(p.relative_to(source)): p.read_text() for p in source.rglob("*") if p.is_file()}, "basekit")
    remote.push()
    profiles = project_dir / ".amplifier" / "profiles"
    _write(profiles / "parts" / "answer.yaml", """
        bundle: {name: app-answer, version: 1.0.0}
        providers:
          - module: provider-scripted
            config:
              script: ["APP-SCRIPTED-ANSWER"]
    """)
    return _write(profiles / "app.md", f"""
        ---
        bundle:
          name: app
          version: 0.1.0
          description: App bundle on basekit (git) plus a local behaviour
        includes:
          - bundle: git+{remote.url}@main
          - ./parts/answer
        ---
        APP-BODY: you work on this project.
    """)


def _only_session(amplifier_home: Path) -> Path:
    sessions = [p for p in (amplifier_home / "data" / "sessions").iterdir() if p.is_dir()]
    assert len(sessions) == 1
    return sessions[0]


def test_run_with_a_bundle_of_local_and_git_includes_answers_with_the_scripted_provider(
    project_dir, app_bundle, amplifier_home
) -> None:
    result = _amplifier("run", "-P", "app", "hello", cwd=project_dir)
    assert result.returncode == 0, result.stderr
    assert "APP-SCRIPTED-ANSWER" in result.stdout
    session = _only_session(amplifier_home)
    messages = [json.loads(line) for line in (session / "transcript.jsonl").read_text().splitlines() if line]
    system = next(m["content"] for m in messages if m["role"] == "system")
    assert system.startswith("APP-BODY: you work on this project.")
    assert "# Context: basekit:context/rules.md\n\nBASEKIT-RULES: answer briefly." in system
    assert json.loads((session / "metadata.json").read_text())["profile"] == "app"


def test_run_accepts_a_bundle_directory_path(project_dir, amplifier_home) -> None:
    kit = project_dir / "kit"
    import shutil

    shutil.copytree(FIXTURES / "basekit", kit)
    result = _amplifier("run", "-P", "./kit", "hello", cwd=project_dir)
    assert result.returncode == 0, result.stderr
    assert "BASEKIT-SCRIPTED-ANSWER" in result.stdout


def test_profile_show_list_and_use_know_bundles(project_dir, app_bundle) -> None:
    shown = _amplifier("profile", "show", "app", cwd=project_dir)
    assert shown.returncode == 0, shown.stderr
    assert f"Profile: app  (project: {app_bundle})" in shown.stdout
    assert "Inheritance: app (project) -> app-answer (include) -> basekit (git) -> basekit-scripted-behavior (git)" \
        in shown.stdout
    resolved = _amplifier("profile", "show", "app", "--resolved", "--json", cwd=project_dir)
    info = json.loads(resolved.stdout)
    assert [p["module"] for p in info["plan"]["providers"]] == ["provider-scripted"]
    assert info["plan"]["providers"][0]["config"]["script"] == ["APP-SCRIPTED-ANSWER"]  # later include wins
    assert info["instruction"].startswith("APP-BODY") and "BASEKIT-RULES" in info["instruction"]

    listed = json.loads(_amplifier("profile", "list", "--json", cwd=project_dir).stdout)
    row = next(row for row in listed if row["name"] == "app")
    assert row["origin"] == "project"
    assert row["description"] == "App bundle on basekit (git) plus a local behaviour"

    used = _amplifier("profile", "use", "app", "--project", cwd=project_dir)
    assert used.returncode == 0, used.stderr
    current = json.loads(_amplifier("profile", "current", "--json", cwd=project_dir).stdout)
    assert current["name"] == "app" and current["scope"] == "project"


def test_include_cycle_and_missing_include_exit_2_with_file_key_path_and_no_traceback(project_dir) -> None:
    profiles = project_dir / ".amplifier" / "profiles"
    _write(profiles / "a.md", "---\nbundle: {name: a}\nincludes: [./b]\n---\nA\n")
    _write(profiles / "b.yaml", "bundle: {name: b}\nincludes:\n  - minimal\n  - ./a.md\n")
    result = _amplifier("run", "-P", "a", "hello", cwd=project_dir)
    assert result.returncode == 2
    assert f"{profiles / 'b.yaml'}:4: includes[1]: bundle include cycle:" in result.stderr
    assert "Traceback" not in result.stderr

    _write(profiles / "c-part.yaml", "bundle: {name: c-part}\n")
    _write(profiles / "c.yaml", "bundle: {name: c}\nincludes:\n  - minimal\n  - ./c-part\n  - ./nope\n")
    result = _amplifier("profile", "show", "c", cwd=project_dir)
    assert result.returncode == 2
    assert f"{profiles / 'c.yaml'}:5: includes[2]: include './nope' not found" in result.stderr
    assert "fix: " in result.stderr and "Traceback" not in result.stderr


def test_agents_included_by_a_bundle_are_the_sessions_agents(project_dir, app_bundle) -> None:
    listed = _amplifier("agents", "list", "-P", "app", "--json", cwd=project_dir)
    assert listed.returncode == 0, listed.stderr
    assert [(row["name"], row["description"]) for row in json.loads(listed.stdout)] == [
        ("basekit:helper", "Looks things up for the main agent")]
    shown = json.loads(_amplifier("agents", "show", "basekit:helper", "-P", "app", "--json", cwd=project_dir).stdout)
    assert shown["instruction"].startswith('<context_file paths="@basekit:context/rules.md -> ')
    assert shown["instruction"].endswith("HELPER-AGENT-INSTRUCTION: you look things up.\n\n@basekit:context/rules.md")
    assert shown["plan"] == {"tools": [{"module": "tool-search"}]}


def test_a_branch_include_stays_cached_until_module_update_refreshes_it(project_dir, git_repos) -> None:
    remote = git_repos.make("amplifier-bundle-moving")
    remote.commit({"bundle.yaml": "bundle: {name: moving}\ntools: [{module: tool-v1}]\n"}, "v1")
    remote.push()
    _write(project_dir / ".amplifier" / "profiles" / "mov.yaml", f"""
        bundle: {{name: mov}}
        includes: [minimal, "git+{remote.url}@main"]
    """)

    def tools() -> list[str]:
        shown = _amplifier("profile", "show", "mov", "--resolved", "--json", cwd=project_dir)
        assert shown.returncode == 0, shown.stderr
        return [t["module"] for t in json.loads(shown.stdout)["plan"].get("tools") or []]

    assert tools() == ["tool-v1"]
    remote.commit({"bundle.yaml": "bundle: {name: moving}\ntools: [{module: tool-v2}]\n"}, "v2")
    remote.push()
    assert tools() == ["tool-v1"]  # fetched once; a branch is not re-fetched on every run
    updated = _amplifier("module", "update", cwd=project_dir)
    assert updated.returncode == 0, updated.stderr
    assert tools() == ["tool-v2"]
