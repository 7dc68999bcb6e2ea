"""Behaviour of ModuleLoader (reference section 6, section 13 items 42-46) and this project's loader rules:
a resolved path beats an installed package, mount() runs once per load, config is bound per load."""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import sys
import uuid
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest
from testkit.module_packages import write_module_package

from amplifier_core import AmplifierSession, ModuleCoordinator, ModuleLoader, ModuleValidationError
from amplifier_core.loader import TYPE_TO_MOUNT_POINT, find_package_dir, guess_module_type, package_name
from amplifier_core.module_sources import ModuleNotFoundError as SourceNotFoundError
from amplifier_core.module_sources import ModuleSource

RECORDING_MOUNT = '''
MOUNTS = []

async def mount(coordinator, config):
    MOUNTS.append(dict(config))
    config.setdefault("calls", []).append("{label}")
    coordinator.register_capability("mounted-by", "{label}")
'''


def recording(label: str) -> str:
    return RECORDING_MOUNT.replace("{label}", label)


class BareSession:
    session_id = "loader-test"
    parent_id = None
    config: dict[str, Any] = {"session": {}}


def new_coordinator() -> ModuleCoordinator:
    return ModuleCoordinator(session=BareSession())


def fake_entry_points(monkeypatch: pytest.MonkeyPatch, points: list[EntryPoint]) -> None:
    """Make the loader see exactly ``points`` in the amplifier.modules group."""

    def select(group: str, name: str | None = None) -> list[EntryPoint]:
        return [ep for ep in points if ep.group == group and (name is None or ep.name == name)]

    monkeypatch.setattr("importlib.metadata.entry_points", select)


def entry(module_id: str, import_name: str) -> EntryPoint:
    return EntryPoint(name=module_id, value=f"{import_name}:mount", group="amplifier.modules")


async def coordinator_with_resolver(resolver: Any) -> ModuleCoordinator:
    coordinator = new_coordinator()
    await coordinator.mount("module-source-resolver", resolver)
    return coordinator


# -- direct discovery ----------------------------------------------------------------------------------

async def test_loader_direct_entry_point_then_import_name(workshop, monkeypatch: pytest.MonkeyPatch) -> None:
    module_id = workshop.unique("tool-direct")
    import_name = package_name(module_id)
    ep_root = workshop.write("ep-package", recording("entry point"), register=False, import_name="ep_provided_pkg")
    fs_root = workshop.write(module_id, recording("import name"), register=False)
    monkeypatch.syspath_prepend(str(ep_root))
    monkeypatch.syspath_prepend(str(fs_root))
    coordinator = new_coordinator()
    fake_entry_points(monkeypatch, [entry(module_id, "ep_provided_pkg")])
    await (await ModuleLoader(coordinator).load(module_id))(coordinator)
    assert coordinator.get_capability("mounted-by") == "entry point"
    fake_entry_points(monkeypatch, [])
    await (await ModuleLoader(coordinator).load(module_id))(coordinator)
    assert coordinator.get_capability("mounted-by") == "import name"
    assert import_name in sys.modules


async def test_loader_not_found_value_error(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_entry_points(monkeypatch, [])
    with pytest.raises(ValueError, match=r"^Module 'tool-does-not-exist' not found via entry points or filesystem$"):
        await ModuleLoader(new_coordinator()).load("tool-does-not-exist")


async def test_loader_without_coordinator_loads_directly(workshop, monkeypatch: pytest.MonkeyPatch) -> None:
    module_id = workshop.unique("tool-nocoord")
    monkeypatch.syspath_prepend(str(workshop.write(module_id, recording("direct"), register=False)))
    fake_entry_points(monkeypatch, [])
    coordinator = new_coordinator()
    mount_fn = await ModuleLoader().load(module_id)
    await mount_fn(coordinator)
    assert coordinator.get_capability("mounted-by") == "direct"


async def test_missing_dependency_names_package_and_install_command(workshop, monkeypatch) -> None:
    module_id = workshop.unique("provider-sdk")
    monkeypatch.syspath_prepend(str(workshop.write(
        module_id, "import not_a_real_sdk_qq.client\n\nasync def mount(coordinator, config): ...\n", register=False)))
    fake_entry_points(monkeypatch, [])
    with pytest.raises(ValueError, match=r"needs the Python package 'not_a_real_sdk_qq'.*pip install not_a_real_sdk"):
        await ModuleLoader(new_coordinator()).load(module_id)


# -- resolver ------------------------------------------------------------------------------------------

async def test_resolver_path_added_to_sys_path_and_removed_on_cleanup(workshop) -> None:
    module_id = workshop.unique("tool-pathy")
    root = workshop.write(module_id, recording("resolved"))
    coordinator = await coordinator_with_resolver(workshop.resolver)
    loader = ModuleLoader(coordinator)
    await (await loader.load(module_id))(coordinator)
    assert str(root) in sys.path
    assert coordinator.get_capability("mounted-by") == "resolved"
    loader.cleanup()
    assert str(root) not in sys.path
    loader.cleanup()


async def test_cleanup_leaves_paths_it_did_not_add(workshop, monkeypatch: pytest.MonkeyPatch) -> None:
    module_id = workshop.unique("tool-preexisting-path")
    root = workshop.write(module_id, recording("resolved"))
    monkeypatch.syspath_prepend(str(root))
    coordinator = await coordinator_with_resolver(workshop.resolver)
    loader = ModuleLoader(coordinator)
    await loader.load(module_id)
    loader.cleanup()
    assert str(root) in sys.path


async def test_session_cleanup_removes_resolver_paths(session_factory, workshop) -> None:
    session = session_factory()
    await session.execute("x")
    added = [str(path) for path in workshop.resolver.paths.values()]
    assert all(path in sys.path for path in added)
    await session.cleanup()
    assert not any(path in sys.path for path in added)


async def test_resolver_module_not_found_falls_back_to_direct(workshop, monkeypatch: pytest.MonkeyPatch) -> None:
    module_id = workshop.unique("tool-fallback")
    monkeypatch.syspath_prepend(str(workshop.write(module_id, recording("installed"), register=False)))
    fake_entry_points(monkeypatch, [])
    coordinator = await coordinator_with_resolver(workshop.resolver)
    await (await ModuleLoader(coordinator).load(module_id))(coordinator)
    assert coordinator.get_capability("mounted-by") == "installed"
    assert workshop.resolver.calls[0][0] == module_id


async def test_module_source_not_found_on_resolve_falls_back_to_direct(workshop, monkeypatch) -> None:
    module_id = workshop.unique("tool-source-missing")
    monkeypatch.syspath_prepend(str(workshop.write(module_id, recording("installed"), register=False)))
    fake_entry_points(monkeypatch, [])

    class VanishedSource(ModuleSource):
        def resolve(self) -> Path:
            raise SourceNotFoundError("git ref vanished")

    class Resolver:
        def resolve(self, module_id: str, source_hint: Any = None, profile_hint: Any = None) -> ModuleSource:
            return VanishedSource()

    coordinator = await coordinator_with_resolver(Resolver())
    await (await ModuleLoader(coordinator).load(module_id))(coordinator)
    assert coordinator.get_capability("mounted-by") == "installed"


async def test_resolver_other_errors_propagate(workshop) -> None:
    class Broken:
        def resolve(self, module_id: str, source_hint: Any = None, profile_hint: Any = None) -> ModuleSource:
            raise PermissionError("cache dir not writable")

    coordinator = await coordinator_with_resolver(Broken())
    with pytest.raises(PermissionError, match="cache dir not writable"):
        await ModuleLoader(coordinator).load("tool-anything")


async def test_async_resolve_preferred_and_hints_passed(workshop) -> None:
    module_id = workshop.unique("tool-async-resolved")
    root = workshop.write(module_id, recording("async"))
    calls: list[tuple[str, Any, Any]] = []

    class AsyncResolver:
        def resolve(self, *args: Any, **kwargs: Any) -> ModuleSource:
            raise AssertionError("sync resolve must not be used when async_resolve exists")

        async def async_resolve(self, module_id: str, source_hint: Any = None, profile_hint: Any = None):
            calls.append((module_id, source_hint, profile_hint))
            return workshop.resolver.resolve(module_id)

    coordinator = await coordinator_with_resolver(AsyncResolver())
    loader = ModuleLoader(coordinator)
    await (await loader.load(module_id, source_hint="git+https://x/y@main"))(coordinator)
    assert calls == [(module_id, "git+https://x/y@main", "git+https://x/y@main")]
    assert coordinator.get_capability("mounted-by") == "async"
    loader.cleanup()
    assert str(root) not in sys.path


async def test_resolved_path_wins_over_installed_entry_point(workshop, monkeypatch: pytest.MonkeyPatch) -> None:
    module_id = workshop.unique("tool-override")
    installed = workshop.write("installed-copy", recording("installed"), register=False,
                               import_name="installed_copy_pkg")
    monkeypatch.syspath_prepend(str(installed))
    fake_entry_points(monkeypatch, [entry(module_id, "installed_copy_pkg")])
    workshop.write(module_id, recording("workspace override"))
    coordinator = await coordinator_with_resolver(workshop.resolver)
    await (await ModuleLoader(coordinator).load(module_id))(coordinator)
    assert coordinator.get_capability("mounted-by") == "workspace override"


async def test_override_of_bundled_module_loads_even_when_already_imported(workshop) -> None:
    bundled = importlib.import_module("amplifier_module_loop_basic")
    assert "loop-basic" in [ep.name for ep in importlib.metadata.entry_points(group="amplifier.modules")]
    override_root = workshop.write("loop-basic", recording("override loop"), extra_files={
        "policy.py": "LIMIT = 7\n",
    })
    (override_root / "amplifier_module_loop_basic" / "__init__.py").write_text(
        recording("override loop") + "\nfrom .policy import LIMIT\n")
    coordinator = await coordinator_with_resolver(workshop.resolver)
    loader = ModuleLoader(coordinator)
    await (await loader.load("loop-basic"))(coordinator)
    assert coordinator.get_capability("mounted-by") == "override loop"
    replaced = sys.modules["amplifier_module_loop_basic"]
    assert replaced is not bundled and replaced.LIMIT == 7
    assert Path(replaced.__file__).parent == override_root / "amplifier_module_loop_basic"
    loader.cleanup()


async def test_installed_module_loads_again_after_an_override_in_the_same_process(workshop) -> None:
    bundled_file = Path(importlib.import_module("amplifier_module_loop_basic").__file__)
    workshop.write("loop-basic", recording("override loop"))
    coordinator = await coordinator_with_resolver(workshop.resolver)
    overriding = ModuleLoader(coordinator)
    await overriding.load("loop-basic")
    overriding.cleanup()
    plain_loader = ModuleLoader(new_coordinator())
    try:
        await plain_loader.load("loop-basic")
    except ModuleValidationError as error:
        # The bundled loop-basic may still be a placeholder without mount(); what matters is which file loaded.
        assert "override" not in str(error)
    assert Path(sys.modules["amplifier_module_loop_basic"].__file__) == bundled_file


async def test_installed_module_loads_while_another_session_s_override_is_still_mounted(workshop) -> None:
    """The override's directory is on sys.path while its session lives; a plain load elsewhere in the process
    must still import the installed package, not the override that shadows it there."""
    bundled_file = Path(importlib.import_module("amplifier_module_loop_basic").__file__)
    workshop.write("loop-basic", recording("override loop"))
    coordinator = await coordinator_with_resolver(workshop.resolver)
    overriding = ModuleLoader(coordinator)
    await overriding.load("loop-basic")
    try:
        await ModuleLoader(new_coordinator()).load("loop-basic")
        assert Path(sys.modules["amplifier_module_loop_basic"].__file__) == bundled_file
        assert str(workshop.resolver.paths["loop-basic"]) in sys.path  # the live override keeps its path
    finally:
        overriding.cleanup()


async def test_resolved_path_may_be_the_package_itself_or_contain_any_module_package(workshop) -> None:
    module_id = workshop.unique("tool-layout")
    root = workshop.write(module_id, recording("as package"))
    workshop.resolver.paths[module_id] = root / package_name(module_id)
    coordinator = await coordinator_with_resolver(workshop.resolver)
    loader = ModuleLoader(coordinator)
    await (await loader.load(module_id))(coordinator)
    assert coordinator.get_capability("mounted-by") == "as package"
    other_id = workshop.unique("tool-odd-name")
    workshop.write(other_id, recording("odd package"), import_name=f"amplifier_module_odd_{workshop.suffix}")
    await (await loader.load(other_id))(coordinator)
    assert coordinator.get_capability("mounted-by") == "odd package"
    loader.cleanup()


async def test_resolved_path_missing_is_validation_error(workshop, tmp_path: Path) -> None:
    workshop.resolver.paths["tool-ghost"] = tmp_path / "no-such-dir"
    coordinator = await coordinator_with_resolver(workshop.resolver)
    with pytest.raises(ModuleValidationError, match=r"'tool-ghost' resolved to .*no-such-dir, which does not exist"):
        await ModuleLoader(coordinator).load("tool-ghost")


async def test_resolved_path_without_package_is_validation_error(workshop, tmp_path: Path) -> None:
    empty = tmp_path / "empty-module"
    empty.mkdir()
    (empty / "README.md").write_text("no code here")
    workshop.resolver.paths["tool-empty"] = empty
    coordinator = await coordinator_with_resolver(workshop.resolver)
    with pytest.raises(ModuleValidationError,
                       match=r"'tool-empty' has no valid Python package at .*amplifier_module_tool_empty/__init__"):
        await ModuleLoader(coordinator).load("tool-empty")


@pytest.mark.parametrize(
    "source, message",
    [
        ("VALUE = 1\n", r"has no mount function: define `async def mount\(coordinator, config\)`"),
        ("mount = 'not callable'\n", r"has no mount function"),
        ("def mount(coordinator, config):\n    return None\n", r"mount\(\) must be async"),
        ("async def mount(coordinator):\n    return None\n", r"mount\(\) takes 1 parameter\(s\); it must take"),
    ],
)
async def test_bad_mount_shapes_rejected_with_fix_hint(workshop, source: str, message: str) -> None:
    module_id = workshop.unique("tool-badshape")
    workshop.write(module_id, source)
    coordinator = await coordinator_with_resolver(workshop.resolver)
    with pytest.raises(ModuleValidationError, match=rf"^Module '{module_id}' \(.*\)(:)? {message}"):
        await ModuleLoader(coordinator).load(module_id)


async def test_mount_with_varargs_or_extra_defaults_accepted(workshop) -> None:
    module_id = workshop.unique("tool-varargs")
    workshop.write(module_id, "async def mount(*args, **kwargs):\n    args[0].register_capability('ok', True)\n")
    coordinator = await coordinator_with_resolver(workshop.resolver)
    await (await ModuleLoader(coordinator).load(module_id))(coordinator)
    assert coordinator.get_capability("ok") is True


# -- mount once, fresh config -----------------------------------------------------------------------------

async def test_loader_never_calls_mount_twice_for_one_load(workshop, monkeypatch: pytest.MonkeyPatch) -> None:
    resolved_id = workshop.unique("tool-once-resolved")
    workshop.write(resolved_id, recording("once"))
    coordinator = await coordinator_with_resolver(workshop.resolver)
    loader = ModuleLoader(coordinator)
    mount_fn = await loader.load(resolved_id)
    module = sys.modules[package_name(resolved_id)]
    assert module.MOUNTS == []
    await mount_fn(coordinator)
    assert len(module.MOUNTS) == 1

    direct_id = workshop.unique("tool-once-direct")
    monkeypatch.syspath_prepend(str(workshop.write(direct_id, recording("once"), register=False)))
    fake_entry_points(monkeypatch, [entry(direct_id, package_name(direct_id))])
    mount_fn = await ModuleLoader(new_coordinator()).load(direct_id)
    direct = sys.modules[package_name(direct_id)]
    assert direct.MOUNTS == []
    await mount_fn(new_coordinator())
    assert len(direct.MOUNTS) == 1
    loader.cleanup()


async def test_session_initialize_mounts_each_module_exactly_once(session_factory, workshop) -> None:
    plan = workshop.standard_plan()
    counted = workshop.unique("tool-counted")
    workshop.write(counted, recording("counted"))
    plan["tools"] = [{"module": counted}]
    session = session_factory(plan)
    await session.initialize()
    await session.initialize()
    assert len(sys.modules[package_name(counted)].MOUNTS) == 1
    await session.cleanup()


async def test_same_module_different_config_gets_fresh_closure(workshop) -> None:
    module_id = workshop.unique("tool-configured")
    workshop.write(module_id, recording("configured"))
    coordinator = await coordinator_with_resolver(workshop.resolver)
    loader = ModuleLoader(coordinator)
    first_config, second_config = {"level": 1}, {"level": 2}
    first = await loader.load(module_id, first_config)
    second = await loader.load(module_id, second_config)
    await second(coordinator)
    await first(coordinator)
    mounts = sys.modules[package_name(module_id)].MOUNTS
    assert [item["level"] for item in mounts] == [2, 1]
    assert "calls" not in first_config and "calls" not in second_config
    third = await loader.load(module_id)
    await third(coordinator)
    assert mounts[-1] == {}
    loader.cleanup()


async def test_mount_fn_accepts_other_coordinator_and_prepare_config(workshop) -> None:
    module_id = workshop.unique("tool-prepared")
    workshop.write(module_id, recording("prepared"))
    coordinator = await coordinator_with_resolver(workshop.resolver)
    loader = ModuleLoader(coordinator)
    seen: list[tuple[str, dict[str, Any]]] = []

    def prepare(mid: str, config: dict[str, Any]) -> dict[str, Any]:
        seen.append((mid, config))
        return {**config, "key": config["key"].replace("${KEY}", "expanded")}

    loader.prepare_config = prepare
    mount_fn = await loader.load(module_id, {"key": "${KEY}"})
    other = new_coordinator()
    await mount_fn(other)
    assert sys.modules[package_name(module_id)].MOUNTS[-1]["key"] == "expanded"
    assert seen == [(module_id, {"key": "${KEY}"})]
    assert other.get_capability("mounted-by") == "prepared" and coordinator.get_capability("mounted-by") is None
    assert await loader.initialize(mount_fn, coordinator) is None
    assert coordinator.get_capability("mounted-by") == "prepared"
    loader.cleanup()


# -- on_session_ready queue and discovery --------------------------------------------------------------

def test_on_session_ready_queue_methods_return_copies() -> None:
    loader = ModuleLoader()

    async def ready(coordinator: Any) -> None:
        return None

    loader.enqueue_on_session_ready("tool-a", ready)
    queue = loader.get_on_session_ready_queue()
    queue.clear()
    assert loader.get_on_session_ready_queue() == [("tool-a", ready)]
    loader.clear_on_session_ready_queue()
    assert loader.get_on_session_ready_queue() == []


async def test_mount_fn_carries_module_id_and_on_session_ready(workshop) -> None:
    module_id = workshop.unique("tool-ready")
    workshop.write(module_id, "async def mount(coordinator, config): ...\n\nasync def on_session_ready(c): ...\n")
    coordinator = await coordinator_with_resolver(workshop.resolver)
    loader = ModuleLoader(coordinator)
    mount_fn = await loader.load(module_id)
    assert mount_fn.module_id == module_id
    assert mount_fn.on_session_ready is sys.modules[package_name(module_id)].on_session_ready
    loader.cleanup()


def test_naming_conventions_and_type_mapping() -> None:
    assert package_name("tool-bash") == "amplifier_module_tool_bash"
    assert TYPE_TO_MOUNT_POINT == {"orchestrator": "orchestrator", "provider": "providers", "tool": "tools",
                                   "hook": "hooks", "context": "context", "resolver": "module-source-resolver"}
    guesses = {module_id: guess_module_type(module_id) for module_id in (
        "loop-basic", "orchestrator-x", "provider-openai", "tool-bash", "hooks-logging", "context-simple",
        "mystery")}
    assert guesses == {"loop-basic": "orchestrator", "orchestrator-x": "orchestrator",
                       "provider-openai": "provider", "tool-bash": "tool", "hooks-logging": "hook",
                       "context-simple": "context", "mystery": "tool"}


def test_find_package_dir_layouts(tmp_path: Path) -> None:
    assert find_package_dir("tool-x", tmp_path) is None
    package = tmp_path / "amplifier_module_tool_x"
    package.mkdir()
    (package / "__init__.py").write_text("")
    assert find_package_dir("tool-x", tmp_path) == package
    assert find_package_dir("tool-x", package) == package
    assert find_package_dir("tool-other", tmp_path) == package


async def test_discover_lists_entry_points_and_search_path_dirs(workshop, monkeypatch, tmp_path: Path) -> None:
    fake_entry_points(monkeypatch, [entry("provider-listed", "nonexistent_pkg_for_discover")])
    search = tmp_path / "search"
    (search / "amplifier-module-hooks-audit").mkdir(parents=True)
    (search / "not-a-module").mkdir()
    declared_id = workshop.unique("tool-declared")
    monkeypatch.syspath_prepend(str(workshop.write(
        declared_id, '__amplifier_module_type__ = "context"\n', register=False)))
    (search / f"amplifier-module-{declared_id}").mkdir()
    found = {info.id: info for info in await ModuleLoader(search_paths=[search]).discover()}
    assert set(found) == {"provider-listed", "hooks-audit", declared_id}
    assert found["provider-listed"].type == "provider" and found["provider-listed"].mount_point == "providers"
    assert found["hooks-audit"].name == "Hooks Audit" and found["hooks-audit"].type == "hook"
    assert found["hooks-audit"].version == "1.0.0" and found["hooks-audit"].description == "Module: hooks-audit"
    assert found[declared_id].type == "context"


async def test_discover_uses_amplifier_modules_env_when_no_search_paths(monkeypatch, tmp_path: Path) -> None:
    fake_entry_points(monkeypatch, [])
    (tmp_path / "a" / "amplifier-module-tool-envfound").mkdir(parents=True)
    monkeypatch.setenv("AMPLIFIER_MODULES", str(tmp_path / "a") + ":" + str(tmp_path / "missing"))
    assert [info.id for info in await ModuleLoader().discover()] == ["tool-envfound"]


async def test_discover_falls_back_to_guess_for_unknown_declared_type(workshop, monkeypatch, tmp_path) -> None:
    module_id = workshop.unique("hooks-weird")
    monkeypatch.syspath_prepend(str(workshop.write(
        module_id, '__amplifier_module_type__ = "gadget"\n', register=False)))
    fake_entry_points(monkeypatch, [entry(module_id, package_name(module_id))])
    infos = await ModuleLoader(search_paths=[]).discover()
    assert infos[0].type == "hook"


async def test_session_with_shared_loader_uses_its_resolver_when_given_coordinator(session_factory, workshop) -> None:
    parent = session_factory()
    await parent.initialize()
    child = AmplifierSession(workshop.standard_plan(), loader=parent.loader, parent_id=parent.session_id)
    child.coordinator.mount_points["module-source-resolver"] = workshop.resolver
    await child.execute("child prompt")
    assert child.coordinator.get("orchestrator") is not parent.coordinator.get("orchestrator")
    await child.cleanup()
    await parent.cleanup()


async def test_entry_point_naming_missing_mount_is_validation_error(workshop, monkeypatch) -> None:
    module_id = workshop.unique("tool-ep-nomount")
    monkeypatch.syspath_prepend(str(workshop.write(module_id, "VALUE = 1\n", register=False)))
    fake_entry_points(monkeypatch, [entry(module_id, package_name(module_id))])
    with pytest.raises(ModuleValidationError, match=rf"^Module '{module_id}' \(entry point .*:mount\) has no mount"):
        await ModuleLoader(new_coordinator()).load(module_id)


async def test_entry_point_table_rescanned_when_sys_path_changes(workshop, monkeypatch: pytest.MonkeyPatch) -> None:
    from amplifier_core.loader import clear_entry_point_cache, installed_entry_point

    module_id = workshop.unique("tool-late-install")
    points: list[EntryPoint] = []
    fake_entry_points(monkeypatch, points)
    assert installed_entry_point(module_id) is None
    points.append(entry(module_id, package_name(module_id)))
    assert installed_entry_point(module_id) is None  # unchanged sys.path: the cached scan is reused
    monkeypatch.syspath_prepend(str(workshop.write(module_id, recording("late"), register=False)))
    assert installed_entry_point(module_id) == points[0]
    points.clear()
    clear_entry_point_cache()
    assert installed_entry_point(module_id) is None


def test_module_failure_reason_is_bounded_and_reads_codes_not_text() -> None:
    from amplifier_core.loader import MODULE_FAILURE_REASONS, ModuleValidationError, module_failure_reason
    from amplifier_core.module_sources import ModuleNotFoundError as SourceNotFoundError

    assert module_failure_reason(SourceNotFoundError("x")) == "missing_source"
    assert module_failure_reason(ModuleValidationError("x")) == "validation_failed"
    assert module_failure_reason(ModuleValidationError("x", reason_code="invalid_package_layout")) == (
        "invalid_package_layout")
    assert module_failure_reason(ModuleValidationError("x", reason_code="made-up")) == "unknown"
    assert module_failure_reason(RuntimeError("missing_source")) == "unknown"
    assert {"invalid_entry_point", "invalid_module_metadata", "unknown"} <= MODULE_FAILURE_REASONS


@pytest.mark.parametrize(("source", "reason"), [
    (None, "invalid_package_layout"),
    ('__amplifier_module_type__ = "tool"\n', "invalid_entry_point"),
    ('__amplifier_module_type__ = "not-a-type"\n\nasync def mount(coordinator, config): ...\n',
     "invalid_module_metadata"),
    ('__amplifier_module_type__ = {"type": "tool"}\n', "invalid_module_metadata"),
])
async def test_validate_module_names_the_failure_with_a_reason_code(tmp_path: Path, source: str | None,
                                                                   reason: str) -> None:
    from amplifier_core.loader import module_failure_reason

    module_id = f"tool-fixture-{uuid.uuid4().hex[:8]}"
    if source is not None:
        package = tmp_path / package_name(module_id)
        package.mkdir()
        (package / "__init__.py").write_text(source)
    try:
        with pytest.raises(ModuleValidationError) as raised:
            await ModuleLoader()._validate_module(module_id, tmp_path)
        assert module_failure_reason(raised.value) == reason
    finally:
        sys.modules.pop(package_name(module_id), None)


async def test_validate_module_accepts_a_well_formed_module_and_reports_a_missing_root(tmp_path: Path) -> None:
    module_id = f"tool-good-{uuid.uuid4().hex[:8]}"
    package = tmp_path / package_name(module_id)
    package.mkdir()
    (package / "__init__.py").write_text(
        '__amplifier_module_type__ = "tool"\n\nasync def mount(coordinator, config): ...\n')
    try:
        assert await ModuleLoader()._validate_module(module_id, tmp_path) == tmp_path
    finally:
        sys.modules.pop(package_name(module_id), None)
    ghost = tmp_path / "absent"
    assert ModuleLoader()._find_package_dir(module_id, ghost) is None
    with pytest.raises(ModuleValidationError, match="no valid Python package") as raised:
        await ModuleLoader()._validate_module(module_id, ghost)
    assert str(ghost) in str(raised.value) and raised.value.reason_code == "missing_source"


def test_load_filesystem_hands_back_the_raw_mount_carrying_an_async_ready_hook(workshop, caplog) -> None:
    module_id = workshop.unique("tool-raw")
    ready_source = "async def mount(coordinator, config): ...\n\nasync def on_session_ready(coordinator): ...\n"
    sync_source = "async def mount(coordinator, config): ...\n\ndef on_session_ready(coordinator): ...\n"
    root = workshop.write(module_id, ready_source)
    sys.path.insert(0, str(root))
    loader = ModuleLoader()
    mount = loader._load_filesystem(module_id)
    assert mount.__on_session_ready__[0] == module_id and loader.get_on_session_ready_queue() == []
    assert loader._load_filesystem("tool-that-does-not-exist-anywhere") is None
    sync_id = workshop.unique("tool-sync-ready")
    sys.path.insert(0, str(workshop.write(sync_id, sync_source)))
    with caplog.at_level("WARNING", logger="amplifier_core.loader"):
        assert not hasattr(loader._load_filesystem(sync_id), "__on_session_ready__")
    assert "must be async" in caplog.text


# -- one canonical module per import name (2.0.2's rule) ------------------------------------------------------
def second_copy(workshop, module_id: str, label: str) -> Path:
    """Another directory holding a package of the same import name as ``module_id``'s."""
    other = workshop.root.parent / "elsewhere"
    write_module_package(other / module_id, package_name(module_id), recording(label))
    return other / module_id


async def test_two_live_loaders_share_one_module_and_a_different_source_is_refused(workshop) -> None:
    module_id = workshop.unique("tool-shared")
    workshop.write(module_id, recording("first"))
    first_coordinator = await coordinator_with_resolver(workshop.resolver)
    first = ModuleLoader(first_coordinator)
    await (await first.load(module_id))(first_coordinator)
    canonical = sys.modules[package_name(module_id)]

    second_coordinator = await coordinator_with_resolver(workshop.resolver)
    same_source = ModuleLoader(second_coordinator)
    await (await same_source.load(module_id))(second_coordinator)
    assert sys.modules[package_name(module_id)] is canonical
    assert same_source._loaded_modules[module_id] is canonical.mount

    workshop.resolver.paths[module_id] = second_copy(workshop, module_id, "second")
    other_coordinator = await coordinator_with_resolver(workshop.resolver)
    with pytest.raises(ModuleValidationError, match="Refusing to import"):
        await ModuleLoader(other_coordinator).load(module_id)
    assert sys.modules[package_name(module_id)] is canonical

    first.cleanup()
    same_source.cleanup()
    released = await coordinator_with_resolver(workshop.resolver)
    await (await ModuleLoader(released).load(module_id))(released)  # nobody runs the first copy any more
    assert released.get_capability("mounted-by") == "second"


async def test_a_loader_does_not_switch_a_module_to_another_source(workshop) -> None:
    module_id = workshop.unique("tool-pinned")
    workshop.write(module_id, recording("first"))
    coordinator = await coordinator_with_resolver(workshop.resolver)
    loader = ModuleLoader(coordinator)
    await loader.load(module_id)
    workshop.resolver.paths[module_id] = second_copy(workshop, module_id, "second")
    with pytest.raises(ImportError, match="already loaded from"):
        await loader.load(module_id)
    loader.cleanup()


async def test_loading_runs_the_type_validator_on_the_module_it_mounts(workshop, monkeypatch) -> None:
    from amplifier_core.validation import ToolValidator

    module_id = workshop.unique("tool-checked")
    workshop.write(module_id, recording("checked"))
    seen: list[Any] = []
    original = ToolValidator._check_mount_exists

    def spy(self, result, module):
        seen.append(module)
        return original(self, result, module)

    monkeypatch.setattr(ToolValidator, "_check_mount_exists", spy)
    coordinator = await coordinator_with_resolver(workshop.resolver)
    loader = ModuleLoader(coordinator)
    await loader.load(module_id)
    assert seen == [sys.modules[package_name(module_id)]]
    loader.cleanup()


def test_a_distribution_installed_into_a_folder_on_sys_path_is_seen_without_clearing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept scan is keyed by sys.path and its folders' modification times: an install adds a dist-info folder."""
    from amplifier_core.loader import installed_entry_point

    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    os.utime(site, ns=(0, 0))  # an old folder: the install below changes its time, however fast it follows
    assert installed_entry_point("tool-installed-late") is None
    info = site / "late_pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: late-pkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[amplifier.modules]\ntool-installed-late = late_pkg:mount\n")
    found = installed_entry_point("tool-installed-late")
    assert found is not None and found.value == "late_pkg:mount"
