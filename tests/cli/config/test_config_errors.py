"""Every broken profile/settings shape produces one short error naming file, line, key path and fix; exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

GOOD_SESSION = "session: {orchestrator: loop-basic, context: context-simple}\n"

# (case id, file text, expected fragments of the error). The file is `.amplifier/profiles/broken.yaml`.
BROKEN_PROFILES = [
    ("unknown-top-level-key", GOOD_SESSION + "toolz: []\n", [":2:", "toolz", "unknown key", "did you mean 'tools'"]),
    ("unknown-session-key", "session:\n  orchestrator: loop-basic\n  contxt: context-simple\n",
     [":3:", "session.contxt", "did you mean 'context'"]),
    ("unknown-module-entry-key", GOOD_SESSION + "tools:\n  - module: tool-bash\n    confg: {}\n",
     [":4:", "tools[0].confg", "did you mean 'config'"]),
    ("module-entry-without-module", GOOD_SESSION + "tools:\n  - config: {a: 1}\n",
     [":3:", "tools[0].module", "required key 'module' is missing", "add 'module:'"]),
    ("empty-module-id", GOOD_SESSION + "hooks:\n  - module: ''\n", [":3:", "hooks[0].module", "at least 1"]),
    ("tools-not-a-list", GOOD_SESSION + "tools: tool-bash\n", [":2:", "tools", "valid list"]),
    ("config-not-a-mapping", GOOD_SESSION + "providers:\n  - module: provider-openai\n    config: [1, 2]\n",
     [":4:", "providers[0].config", "valid dictionary"]),
    ("unknown-profile-meta-key", "profile: {name: x, extend: base}\n" + GOOD_SESSION,
     [":1:", "profile.extend", "did you mean 'extends'"]),
    ("exclude-bad-shape", GOOD_SESSION + "exclude: {tools: yes}\n", [":2:", "exclude.tools", "'all' or a list"]),
    ("exclude-unknown-section", GOOD_SESSION + "exclude: {tool: all}\n",
     [":2:", "exclude.tool", "did you mean 'tools'"]),
    ("agents-bad-shape", GOOD_SESSION + "agents: 5\n", [":2:", "agents", "agents must be"]),
    ("instruction-not-text", GOOD_SESSION + "instruction: {a: 1}\n", [":2:", "instruction", "must be text"]),
    ("upstream-ui-key", GOOD_SESSION + "ui: {show_thinking: true}\n",
     [":2:", "'ui' is not a profile key", "hooks-streaming-ui"]),
    ("missing-orchestrator-after-merge", "session: {context: context-simple}\n",
     ["session.orchestrator", "after inheritance", "fix:"]),
    ("no-session-at-all", "tools: [{module: tool-bash}]\n", ["session.orchestrator and session.context"]),
    ("bad-source-object", GOOD_SESSION + "tools:\n  - module: tool-x\n    source: {type: svn, url: x}\n",
     [":4:", "tools[0].source", "type: git"]),
    ("yaml-syntax-error", GOOD_SESSION + "tools: [\n  - module: x\n", ["invalid YAML", "broken.yaml:"]),
    ("not-a-mapping", "- just\n- a list\n", ["must be a mapping", ":1:"]),
    ("extends-unknown", "profile: {extends: nosuch}\n", [":1:", "profile.extends", "unknown profile 'nosuch'"]),
    ("session-int-budget", "session: {orchestrator: loop-basic, context: context-simple, "
     "injection_budget_per_turn: lots}\n", [":1:", "session.injection_budget_per_turn", "valid integer"]),
]


@pytest.mark.parametrize(("text", "expected"), [case[1:] for case in BROKEN_PROFILES],
                         ids=[case[0] for case in BROKEN_PROFILES])
def test_broken_profile_reports_location_and_fix_with_exit_2(text, expected, cli, write, project_dir) -> None:
    path = write(project_dir / ".amplifier" / "profiles" / "broken.yaml", text)
    result = cli("profile", "show", "broken")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    message = result.stderr
    assert str(path) in message
    for fragment in expected:
        assert fragment in message, f"{fragment!r} not in {message!r}"


BROKEN_SETTINGS = [
    ("unknown-top-level", "profil: {active: x}\n", [":1:", "profil", "did you mean 'profile'"]),
    ("unknown-profile-key", "profile: {actve: x}\n", [":1:", "profile.actve", "did you mean 'active'"]),
    ("sources-not-mapping", "sources: [a, b]\n", [":1:", "sources", "valid dictionary"]),
    ("source-value-not-text", "sources:\n  tool-x: 5\n", [":2:", "sources.tool-x", "valid string"]),
    ("provider-override-without-module", "config:\n  providers:\n    - config: {priority: 1}\n",
     [":3:", "config.providers[0].module", "missing"]),
    ("unknown-modules-section", "modules:\n  tool: []\n", [":2:", "modules.tool", "did you mean 'tools'"]),
    ("settings-yaml-syntax", "profile: {active: x\n", ["invalid YAML"]),
    ("settings-not-a-mapping", "just text\n", ["must be a mapping"]),
]


@pytest.mark.parametrize("scope_file", ["settings.yaml", "settings.local.yaml"])
@pytest.mark.parametrize(("text", "expected"), [case[1:] for case in BROKEN_SETTINGS],
                         ids=[case[0] for case in BROKEN_SETTINGS])
def test_broken_settings_report_location_and_fix_with_exit_2(text, expected, scope_file, cli, write,
                                                             project_dir: Path) -> None:
    path = write(project_dir / ".amplifier" / scope_file, text)
    result = cli("profile", "current")
    assert result.exit_code == 2, result.output
    assert str(path) in result.stderr
    for fragment in expected:
        assert fragment in result.stderr, f"{fragment!r} not in {result.stderr!r}"


def test_all_problems_in_one_file_are_reported_together(cli, write, project_dir) -> None:
    write(project_dir / ".amplifier" / "profiles" / "broken.yaml",
          GOOD_SESSION + "toolz: []\nhookz: []\n")
    result = cli("profile", "show", "broken")
    assert result.exit_code == 2
    assert "toolz" in result.stderr and "hookz" in result.stderr


def test_unknown_profile_name_suggests_the_closest(cli, project_dir) -> None:
    result = cli("profile", "show", "defualt")
    assert result.exit_code == 2
    assert "profile 'defualt' not found" in result.stderr and "did you mean 'default'" in result.stderr


def test_verbose_adds_a_traceback(cli, project_dir) -> None:
    result = cli("--verbose", "profile", "show", "nosuch")
    assert result.exit_code == 2
    assert "Traceback" in result.stderr


@pytest.mark.parametrize("content", [b"profile: {active: 'caf\xe9'}\n", bytes(range(128, 256)) * 2],
                         ids=["latin-1", "binary-garbage"])
@pytest.mark.parametrize("relative", [".amplifier/settings.yaml", ".amplifier/profiles/broken.yaml"])
def test_undecodable_settings_or_profile_is_a_config_error_naming_the_file(content, relative, cli,
                                                                          project_dir) -> None:
    path = project_dir / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    result = cli("profile", "show", "broken") if "profiles" in relative else cli("profile", "current")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert str(path) in result.stderr and "UTF-8" in result.stderr


def test_profile_extending_its_own_name_with_nothing_below_says_so(cli, write, project_dir) -> None:
    path = write(project_dir / ".amplifier" / "profiles" / "solo.yaml", "profile: {extends: solo}\n" + GOOD_SESSION)
    result = cli("profile", "show", "solo")
    assert result.exit_code == 2
    assert str(path) in result.stderr and "profile.extends" in result.stderr
    assert "extends its own name 'solo'" in result.stderr and "did you mean 'solo'" not in result.stderr


@pytest.mark.parametrize("module_id", ["../../etc", "tool bash", "tools/x", "a.b"])
def test_module_id_that_is_not_a_plain_name_is_a_config_error(module_id, cli, write, project_dir) -> None:
    path = write(project_dir / ".amplifier" / "profiles" / "odd.yaml",
                 GOOD_SESSION + f"tools:\n  - module: '{module_id}'\n")
    for args in (("profile", "show", "odd"), ("run", "-P", "odd", "hi")):
        result = cli(*args)
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        assert str(path) in result.stderr and ":3:" in result.stderr and "tools[0].module" in result.stderr
        assert "letters, digits" in result.stderr
