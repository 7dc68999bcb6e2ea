"""profile / source / module commands through the Typer app: output, --json, scopes and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import yaml


def test_no_arguments_prints_help_for_now(cli) -> None:
    result = cli()
    assert result.exit_code == 0 and "profile" in result.stdout and "module" in result.stdout


def test_version_flag(cli) -> None:
    from amplifier_cli import __version__

    result = cli("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"amplifier {__version__}"


def test_a_near_miss_of_a_command_is_a_usage_error_with_exit_2(cli) -> None:
    result = cli("sesion")  # a word that resembles no command is a prompt instead (test_prompt_argv.py)
    assert result.exit_code == 2 and "Did you mean 'session'?" in result.output


def test_profile_list_json_marks_active_and_shadowed_entries(cli, paths, write) -> None:
    write(paths.user_profiles_dir / "demo.yaml", "profile: {extends: demo, description: my demo}\n")
    write(paths.user_settings, "profile: {active: demo}\n")
    rows = {r["name"]: r for r in json.loads(cli("profile", "list", "--json").stdout)}
    assert {"default", "minimal", "demo"} <= set(rows)
    assert rows["demo"]["origin"] == "user" and rows["demo"]["status"] == "active"
    assert rows["demo"]["description"] == "my demo" and rows["demo"]["shadows"][0].startswith("bundled:")
    assert rows["default"]["status"] == "default"


def test_profile_list_human_output_is_a_table(cli, project_dir) -> None:
    result = cli("profile", "list")
    assert result.exit_code == 0 and "default" in result.stdout and "bundled" in result.stdout


def test_profile_use_writes_the_chosen_scope_and_current_reports_it(cli, paths) -> None:
    result = cli("profile", "use", "minimal")
    assert result.exit_code == 0, result.output
    assert yaml.safe_load(paths.user_settings.read_text()) == {"profile": {"active": "minimal"}}
    assert json.loads(cli("profile", "current", "--json").stdout)["name"] == "minimal"
    assert cli("profile", "use", "demo", "--local").exit_code == 0
    assert yaml.safe_load(paths.local_settings.read_text()) == {"profile": {"active": "demo"}}
    current = json.loads(cli("profile", "current", "--json").stdout)
    assert (current["name"], current["scope"], current["file"]) == ("demo", "local", str(paths.local_settings))
    assert cli("profile", "use", "default", "--project").exit_code == 0
    assert "default" in paths.project_settings.read_text()


def test_profile_use_refuses_an_invalid_profile_and_writes_nothing(cli, paths, write) -> None:
    write(paths.user_profiles_dir / "bad.yaml", "toolz: []\n")
    result = cli("profile", "use", "bad")
    assert result.exit_code == 2 and "toolz" in result.stderr
    assert not paths.user_settings.exists()


def test_profile_use_with_two_scopes_is_a_usage_error(cli, project_dir) -> None:
    result = cli("profile", "use", "demo", "--local", "--global")
    assert result.exit_code == 2 and "only one of" in result.stderr


def test_profile_current_without_settings_names_the_builtin_default(cli, project_dir) -> None:
    result = cli("profile", "current")
    assert result.exit_code == 0 and "default" in result.stdout and "built-in default" in result.stdout


def test_profile_show_resolved_prints_the_merged_plan_with_references(cli, paths, write, monkeypatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-should-not-appear")
    write(paths.project_profiles_dir / "mine.yaml", """
profile: {extends: minimal}
providers: [{module: provider-openai, config: {api_key: "${MY_KEY}"}}]
""")
    result = cli("profile", "show", "mine", "--resolved")
    assert result.exit_code == 0, result.output
    assert "${MY_KEY}" in result.stdout and "sk-should-not-appear" not in result.stdout
    assert "Inheritance: mine (project) -> minimal (bundled)" in result.stdout
    data = json.loads(cli("profile", "show", "mine", "--resolved", "--json").stdout)
    assert data["plan"]["providers"][1]["config"]["api_key"] == "${MY_KEY}"


def test_profile_show_without_resolved_prints_the_file(cli, project_dir) -> None:
    result = cli("profile", "show", "demo")
    assert result.exit_code == 0 and "SCRIPTED MODEL" in result.stdout


def test_source_add_list_show_remove_round_trip(cli, paths, tmp_path, monkeypatch) -> None:
    module_dir = tmp_path / "checkout" / "tool-bash"
    (module_dir / "amplifier_module_tool_bash").mkdir(parents=True)
    (module_dir / "amplifier_module_tool_bash" / "__init__.py").write_text("async def mount(c, config):\n    pass\n")
    monkeypatch.chdir(tmp_path / "checkout")
    add = cli("source", "add", "tool-bash", "./tool-bash")
    assert add.exit_code == 0, add.output
    stored = yaml.safe_load(paths.user_settings.read_text())["sources"]["tool-bash"]
    assert stored == str(module_dir)  # relative paths are stored absolute
    listed = json.loads(cli("source", "list", "--json").stdout)
    assert listed == [{"module": "tool-bash", "source": str(module_dir), "scope": "user"}]
    shown = json.loads(cli("source", "show", "tool-bash", "--json").stdout)
    assert shown["resolved_by"] == "settings" and shown["source"] == str(module_dir)
    assert [layer["layer"] for layer in shown["layers"]] == ["env", "workspace", "settings", "plan", "package"]
    assert cli("source", "remove", "tool-bash").exit_code == 0
    assert json.loads(cli("source", "list", "--json").stdout) == []
    assert json.loads(cli("source", "show", "tool-bash", "--json").stdout)["resolved_by"] == "package"


def test_source_add_to_project_scope_and_remove_from_the_wrong_scope_says_where_it_is(cli, paths) -> None:
    assert cli("source", "add", "tool-x", "git+https://example.invalid/x@v1", "project").exit_code == 0
    assert "git+https://example.invalid/x@v1" in paths.project_settings.read_text()
    result = cli("source", "remove", "tool-x", "local")
    assert result.exit_code == 2 and "it is set in: project" in result.stderr


def test_source_add_rejects_bad_uris_and_scopes(cli, project_dir) -> None:
    assert cli("source", "add", "tool-x", "git+https://h/r@").exit_code == 2
    result = cli("source", "add", "tool-x", "/x", "everywhere")
    assert result.exit_code == 2 and "unknown scope" in result.stderr


def test_source_show_for_an_unknown_module_lists_every_layer_and_exits_1(cli, project_dir) -> None:
    result = cli("source", "show", "tool-nowhere")
    assert result.exit_code == 1
    assert "AMPLIFIER_MODULE_TOOL_NOWHERE not set" in result.stdout and "Not found" in result.stdout


def test_source_show_uses_the_active_profiles_source_hint(cli, paths, write, tmp_path) -> None:
    write(paths.project_profiles_dir / "p.yaml", f"""
profile: {{extends: minimal}}
tools: [{{module: tool-z, source: "{tmp_path / 'z'}"}}]
""")
    write(paths.local_settings, "profile: {active: p}\n")
    shown = json.loads(cli("source", "show", "tool-z", "--json").stdout)
    assert shown["resolved_by"] == "plan" and shown["source"] == str(tmp_path / "z")


def test_module_list_json_covers_installed_and_profile_modules(cli, paths) -> None:
    rows = {r["module"]: r for r in json.loads(cli("module", "list", "--json").stdout)}
    assert rows["tool-bash"]["installed"] and rows["tool-bash"]["in_profile"]
    assert rows["tool-bash"]["origin"] == "package" and rows["tool-bash"]["type"] == "tool"
    assert rows["context-persistent"]["installed"] and not rows["context-persistent"]["in_profile"]
    providers = json.loads(cli("module", "list", "--type", "provider", "--json").stdout)
    assert {r["type"] for r in providers} == {"provider"}


def test_module_show_reports_layers_and_unknown_ids_exit_2(cli, project_dir) -> None:
    info = json.loads(cli("module", "show", "hooks-logging", "--json").stdout)
    assert info["type"] == "hook" and info["resolved_by"] == "package"
    result = cli("module", "show", "tool-nowhere")
    assert result.exit_code == 2 and "not known anywhere" in result.stderr


def test_commands_never_write_outside_amplifier_home(cli, paths, amplifier_home: Path) -> None:
    cli("profile", "use", "demo")
    cli("source", "add", "tool-x", "/opt/x")
    assert paths.user_settings.is_relative_to(amplifier_home.resolve())


def test_source_add_and_remove_accept_the_scope_flags_profile_use_accepts(cli, project_dir) -> None:
    import yaml

    path = project_dir / ".amplifier" / "settings.local.yaml"
    assert cli("source", "add", "tool-x", "/opt/x", "--local").exit_code == 0
    assert yaml.safe_load(path.read_text()) == {"sources": {"tool-x": "/opt/x"}}
    assert cli("source", "remove", "tool-x", "--local").exit_code == 0
    assert yaml.safe_load(path.read_text()) in (None, {})
    clash = cli("source", "add", "tool-x", "/opt/x", "project", "--local")
    assert clash.exit_code == 2 and "only one" in clash.stderr


def test_chat_options_before_a_command_are_a_usage_error_naming_the_fix(cli) -> None:
    result = cli("-P", "demo", "session", "list")
    assert result.exit_code == 2
    assert "chat options go after the command" in result.stderr and "move them after 'session'" in result.stderr

