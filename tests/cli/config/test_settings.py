"""Settings scopes: user <- project <- local, deep-merged; where files live; how writes keep other keys."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from amplifier_cli.config.paths import AmplifierPaths, find_project_root
from amplifier_cli.config.settings import load_settings, update_scope


def test_amplifier_home_holds_config_data_and_cache(amplifier_home: Path, project_dir: Path) -> None:
    paths = AmplifierPaths.discover()
    assert paths.config_dir == amplifier_home.resolve() / "config"
    assert paths.data_dir == amplifier_home.resolve() / "data"
    assert paths.cache_dir == amplifier_home.resolve() / "cache"


def test_without_amplifier_home_platformdirs_are_used(monkeypatch, project_dir: Path) -> None:
    monkeypatch.delenv("AMPLIFIER_HOME")
    paths = AmplifierPaths.discover()
    assert "amplifier" in str(paths.config_dir) and "amplifier" in str(paths.cache_dir)
    assert paths.config_dir != paths.cache_dir


def test_project_root_is_found_from_a_subdirectory(project_dir: Path) -> None:
    nested = project_dir / "src" / "pkg"
    nested.mkdir(parents=True)
    assert find_project_root(nested) == project_dir


def test_home_directory_is_never_a_project_root(monkeypatch, tmp_path: Path) -> None:
    home = Path.home().resolve()
    (home / ".amplifier").mkdir(exist_ok=True)
    assert find_project_root(home) is None


def test_later_scopes_win_and_dicts_merge_deeply(paths: AmplifierPaths, write) -> None:
    write(paths.user_settings, """
        sources: {tool-a: /user/a, tool-b: /user/b, tool-c: /user/c}
        profile: {active: from-user}
    """)
    write(paths.project_settings, """
        sources: {tool-b: /project/b, tool-c: /project/c}
    """)
    write(paths.local_settings, """
        sources: {tool-c: /local/c}
    """)
    settings = load_settings(paths)
    assert settings.sources == {"tool-a": "/user/a", "tool-b": "/project/b", "tool-c": "/local/c"}
    assert settings.source_origin("tool-a") == "user"
    assert settings.source_origin("tool-b") == "project"
    assert settings.source_origin("tool-c") == "local"


def test_lists_are_replaced_not_concatenated_across_scopes(paths: AmplifierPaths, write) -> None:
    write(paths.user_settings, "config: {providers: [{module: provider-openai}]}\n")
    write(paths.local_settings, "config: {providers: [{module: provider-anthropic}]}\n")
    assert [p["module"] for p in load_settings(paths).provider_overrides] == ["provider-anthropic"]


def test_active_profile_precedence_local_project_projectdefault_user(paths: AmplifierPaths, write) -> None:
    write(paths.user_settings, "profile: {active: u}\n")
    assert load_settings(paths).active_profile() == ("u", "user")
    write(paths.project_settings, "profile: {default: pd}\n")
    assert load_settings(paths).active_profile() == ("pd", "project")
    write(paths.project_settings, "profile: {default: pd, active: pa}\n")
    assert load_settings(paths).active_profile() == ("pa", "project")
    write(paths.local_settings, "profile: {active: l}\n")
    assert load_settings(paths).active_profile() == ("l", "local")


def test_no_settings_means_no_active_profile(paths: AmplifierPaths) -> None:
    assert load_settings(paths).active_profile() == (None, None)


def test_relative_settings_sources_are_relative_to_the_settings_file(paths: AmplifierPaths, write) -> None:
    write(paths.project_settings, "sources: {tool-x: ../vendor/tool-x}\n")
    assert load_settings(paths).sources["tool-x"] == str(paths.project_root / "vendor" / "tool-x")


def test_update_scope_keeps_other_keys_and_removing_prunes_empty_maps(paths: AmplifierPaths, write) -> None:
    write(paths.user_settings, "profile: {active: x}\nsources: {tool-a: /a}\n")
    update_scope(paths, "user", ("sources", "tool-b"), "/b")
    assert yaml.safe_load(paths.user_settings.read_text()) == {
        "profile": {"active": "x"},
        "sources": {"tool-a": "/a", "tool-b": "/b"},
    }
    update_scope(paths, "user", ("sources", "tool-a"), None)
    update_scope(paths, "user", ("sources", "tool-b"), None)
    assert yaml.safe_load(paths.user_settings.read_text()) == {"profile": {"active": "x"}}


@pytest.mark.parametrize("text", ["- my\n- precious\n- list\n", "just a sentence\n", "profile: [a, b]\n"])
def test_profile_use_refuses_to_replace_a_settings_file_it_cannot_edit(text, cli, project_dir: Path) -> None:
    path = project_dir / ".amplifier" / "settings.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    result = cli("profile", "use", "demo", "--project")
    assert result.exit_code == 2, result.output
    assert str(path) in result.stderr and "fix:" in result.stderr
    assert path.read_text() == text  # nothing the user wrote is lost


def test_profile_use_and_source_add_keep_the_comments_of_the_settings_file(cli, project_dir: Path) -> None:
    path = project_dir / ".amplifier" / "settings.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("# team settings: ask Ann before changing\nprofile:\n  active: default  # the safe one\n")
    assert cli("profile", "use", "demo", "--project").exit_code == 0
    assert cli("source", "add", "tool-x", "/opt/tool-x", "project").exit_code == 0
    text = path.read_text()
    assert "# team settings: ask Ann before changing" in text and "# the safe one" in text
    assert yaml.safe_load(text) == {"profile": {"active": "demo"}, "sources": {"tool-x": "/opt/tool-x"}}
