"""Source URIs and the layered resolver: env > workspace > settings > plan > installed package."""

from __future__ import annotations

from pathlib import Path

import pytest
from testkit.git_repos import module_source

from amplifier_cli.config.settings import load_settings
from amplifier_cli.config.source_uri import GitSource, PackageSource, PathSource, parse_source
from amplifier_cli.errors import ConfigError
from amplifier_cli.plans.sources import make_resolver
from amplifier_core.module_sources import ModuleLoadError, ModuleNotFoundError


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("git+https://github.com/o/r@v1.2", GitSource("https://github.com/o/r", "v1.2")),
        ("git+https://github.com/o/r", GitSource("https://github.com/o/r", None)),
        ("git+https://h/o/r@feature/x#subdirectory=pkg/a", GitSource("https://h/o/r", "feature/x", "pkg/a")),
        ("git+ssh://git@host/o/r", GitSource("ssh://git@host/o/r", None)),
        ("git+ssh://git@host/o/r@main", GitSource("ssh://git@host/o/r", "main")),
        ("git+git@host:o/r@dev", GitSource("git@host:o/r", "dev")),
        ("git+file:///srv/r.git@abc1234", GitSource("file:///srv/r.git", "abc1234")),
        ("file:///opt/mods/tool-x", PathSource(Path("/opt/mods/tool-x"))),
        ("/opt/mods/tool-x", PathSource(Path("/opt/mods/tool-x"))),
        ("amplifier-module-tool-x", PackageSource("amplifier-module-tool-x")),
    ],
)
def test_source_uris_parse(uri: str, expected) -> None:
    assert parse_source(uri) == expected


def test_relative_and_home_paths_resolve_against_base_dir_and_home(tmp_path: Path) -> None:
    assert parse_source("../x", tmp_path / "a") == PathSource(tmp_path / "x")
    assert parse_source("~/m") == PathSource(Path.home() / "m")


@pytest.mark.parametrize(("uri", "fragment"), [
    ("git+https://h/o/r@", "empty ref"),
    ("git+https://h/o/r#egg=x", "unsupported fragment"),
    ("   ", "empty module source"),
    ("git+https://h/o/r@main#subdirectory=../../..", "stay inside the repository"),
    ("git+https://h/o/r@main#subdirectory=pkg/../../x", "stay inside the repository"),
])
def test_bad_source_uris_are_config_errors(uri: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_source(uri)
    assert fragment in caught.value.render()


def _module_dir(root: Path, module_id: str, marker: str) -> Path:
    for relative, text in module_source(module_id, marker).items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


def test_each_layer_wins_over_the_ones_below_it(paths, write, tmp_path, monkeypatch) -> None:
    module_id = "tool-bash"  # also installed as a bundled entry point: the lowest layer
    plan_dir = _module_dir(tmp_path / "plan", module_id, "plan")
    settings_dir = _module_dir(tmp_path / "settings", module_id, "settings")
    env_dir = _module_dir(tmp_path / "env", module_id, "env")

    def winner() -> tuple[str, Path]:
        source = make_resolver(load_settings(paths)).resolve(module_id, source_hint=str(plan_dir))
        return source.layer, source.resolve()

    resolver = make_resolver(load_settings(paths))
    assert resolver.resolve(module_id).layer == "package"
    assert winner() == ("plan", plan_dir)
    write(paths.user_settings, f"sources: {{{module_id}: {settings_dir}}}\n")
    assert winner() == ("settings", settings_dir)
    workspace = _module_dir(paths.workspace_modules_dir / module_id, module_id, "workspace")
    assert winner() == ("workspace", workspace)
    monkeypatch.setenv("AMPLIFIER_MODULE_TOOL_BASH", str(env_dir))
    assert winner() == ("env", env_dir)


def test_workspace_dir_without_python_files_is_skipped(paths) -> None:
    (paths.workspace_modules_dir / "tool-bash").mkdir(parents=True)
    answers = {a.layer: a for a in make_resolver(load_settings(paths)).explain("tool-bash")}
    assert not answers["workspace"].found and "no Python files" in answers["workspace"].detail
    assert answers["package"].found


def test_installed_package_layer_points_at_the_bundled_module_without_importing_it(paths) -> None:
    import sys

    sys.modules.pop("amplifier_module_tool_todo", None)
    directory = make_resolver(load_settings(paths)).resolve("tool-todo").resolve()
    assert (directory / "amplifier_module_tool_todo" / "__init__.py").is_file()
    assert "amplifier_module_tool_todo" not in sys.modules


@pytest.mark.parametrize("hint", [
    "git+https://github.com/microsoft/amplifier-module-tool-todo@main",
    "git+https://github.com/microsoft/amplifier-module-tool-todo.git@v1.0.0",
])
def test_upstreams_repository_of_a_bundled_module_is_answered_by_the_bundled_module(paths, hint: str) -> None:
    """Upstream bundles name every module by its repository; for ids amplifier bundles that means the bundled
    module (no clone: it runs offline), and `source show` says why the plan's hint was passed over."""
    resolver = make_resolver(load_settings(paths))
    source = resolver.resolve("tool-todo", source_hint=hint)
    assert source.layer == "package" and (source.resolve() / "amplifier_module_tool_todo").is_dir()
    answers = {answer.layer: answer for answer in resolver.explain("tool-todo", hint)}
    assert not answers["plan"].found and "the bundled one is used" in answers["plan"].detail


def test_a_user_who_names_upstreams_repository_in_settings_still_gets_it(paths, write) -> None:
    url = "git+https://github.com/microsoft/amplifier-module-tool-todo@main"
    write(paths.user_settings, f"sources: {{tool-todo: '{url}'}}\n")
    source = make_resolver(load_settings(paths)).resolve("tool-todo")
    assert source.layer == "settings" and source.uri == url


def test_another_repository_or_a_module_not_bundled_keeps_the_plans_source(paths) -> None:
    resolver = make_resolver(load_settings(paths))
    fork = "git+https://github.com/someone/amplifier-module-tool-todo@main"
    assert resolver.resolve("tool-todo", source_hint=fork).layer == "plan"
    other = "git+https://github.com/microsoft/amplifier-module-tool-unbundled@main"
    assert resolver.resolve("tool-unbundled", source_hint=other).layer == "plan"


def test_pointing_at_the_package_dir_itself_returns_its_parent(paths, tmp_path) -> None:
    root = _module_dir(tmp_path / "m", "tool-x", "v")
    source = make_resolver(load_settings(paths)).resolve("tool-x", source_hint=str(root / "amplifier_module_tool_x"))
    assert source.resolve() == root


def test_not_found_lists_what_every_layer_answered(paths) -> None:
    with pytest.raises(ModuleNotFoundError) as caught:
        make_resolver(load_settings(paths)).resolve("tool-nowhere")
    message = str(caught.value)
    for fragment in ["Module 'tool-nowhere' not found", "AMPLIFIER_MODULE_TOOL_NOWHERE not set",
                     "tool-nowhere does not exist", "no sources.tool-nowhere in settings",
                     "the plan gives no source", "no installed entry point", "amplifier source add"]:
        assert fragment in message


def test_missing_path_source_is_a_load_error_naming_the_layer(paths, tmp_path) -> None:
    source = make_resolver(load_settings(paths)).resolve("tool-x", source_hint=str(tmp_path / "gone"))
    with pytest.raises(ModuleLoadError, match=r"tool-x.*\(plan\).*does not exist"):
        source.resolve()


def test_missing_third_party_dependency_says_what_to_install(paths, tmp_path) -> None:
    root = _module_dir(tmp_path / "m", "tool-x", "v")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "amplifier-module-tool-x"\n'
        'dependencies = ["amplifier-core", "pyyaml>=5", "surely-not-installed-pkg>=1.0"]\n'
    )
    source = make_resolver(load_settings(paths)).resolve("tool-x", source_hint=str(root))
    with pytest.raises(ModuleLoadError) as caught:
        source.resolve()
    message = str(caught.value)
    assert "surely-not-installed-pkg>=1.0" in message and "pip install" in message
    assert "pyyaml" not in message and "amplifier-core" not in message


async def test_kernel_imports_a_workspace_override_instead_of_the_installed_module(paths) -> None:
    """End to end with the kernel: the resolver's path wins over the installed entry point of the same id."""
    from amplifier_core import AmplifierSession

    override = paths.workspace_modules_dir / "tool-todo" / "amplifier_module_tool_todo"
    override.mkdir(parents=True)
    (override / "__init__.py").write_text(
        "class T:\n    name = 'todo_override'\n    description = 'override'\n"
        "    input_schema = {'type': 'object', 'properties': {}}\n"
        "    async def execute(self, input):\n        return None\n"
        "async def mount(coordinator, config):\n    await coordinator.mount('tools', T(), name='todo_override')\n"
    )
    import sys

    sys.modules.pop("amplifier_module_tool_todo", None)
    session = AmplifierSession({"session": {"orchestrator": "loop-basic", "context": "context-simple"},
                                "tools": [{"module": "tool-todo"}]})
    await session.coordinator.mount("module-source-resolver", make_resolver(load_settings(paths)))
    try:
        loader = session.loader
        mount = await loader.load("tool-todo", {})
        await mount(session.coordinator)
        assert "todo_override" in session.coordinator.get("tools")
    finally:
        await session.cleanup()
        sys.modules.pop("amplifier_module_tool_todo", None)
