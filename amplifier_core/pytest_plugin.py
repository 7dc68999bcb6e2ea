"""pytest plugin ``amplifier_module`` (pytest11 entry point): fixtures for testing an amplifier module.

The module under test is ``--module-path`` (a package dir, or a module repository / ``modules/<id>/`` dir
holding one ``amplifier_module_*`` package), else found by walking up from the test file to an
``amplifier-module-<type>-...`` (or ``<type>-<name>/amplifier_module_<type>_<name>``) directory, else the
``amplifier_module_<type>_*`` package directly inside the working directory, rootdir or a test path. The kernel's
own behavioural/structural suites are skipped unless there is a module under test, and only the suite of
its type runs. This file imports nothing from amplifier_core at import time: it loads in every pytest run.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

_async_fixture: Any
try:  # async fixtures must be declared through pytest-asyncio to work in its strict mode
    import pytest_asyncio

    _async_fixture = pytest_asyncio.fixture
except ImportError:  # pragma: no cover - pytest-asyncio is a dependency of module test suites
    _async_fixture = pytest.fixture

_REPO_PREFIX = "amplifier-module-"  # the same as amplifier_core.module_ids (not imported here: see above)
_PACKAGE_PREFIX = "amplifier_module_"
_KERNEL_SUITES = (Path(__file__).parent / "validation" / "behavioral",
                  Path(__file__).parent / "validation" / "structural")
_SUITE_TYPES = ("provider", "tool", "hook", "orchestrator", "context")
_CONTEXT_KEY = pytest.StashKey["ModuleContext"]()
_CONFIG_KEY = pytest.StashKey[dict[str, Any]]()


@dataclass(frozen=True)
class ModuleContext:
    package_dir: Path | None
    module_type: str | None


def module_type_from_name(name: str) -> str | None:
    """``amplifier-module-hooks-logging``, ``tool-bash`` or ``amplifier_module_loop_basic`` -> the type."""
    from amplifier_core.module_ids import MODULE_TYPES, type_from_name  # only once a module is in sight

    kind = type_from_name(name)
    return kind if kind in MODULE_TYPES else None


def find_module_package(path: Path) -> Path | None:
    """The ``amplifier_module_*`` package at or directly inside ``path``."""
    if path.name.startswith(_PACKAGE_PREFIX) and (path / "__init__.py").is_file():
        return path
    if not path.is_dir():
        return None
    expected = path / (_PACKAGE_PREFIX + path.name.removeprefix(_REPO_PREFIX).replace("-", "_"))
    if (expected / "__init__.py").is_file():
        return expected
    packages = [child for child in sorted(path.iterdir())
                if child.name.startswith(_PACKAGE_PREFIX) and (child / "__init__.py").is_file()]
    if len(packages) == 1:
        return packages[0]
    if (path / "__init__.py").is_file():
        return path
    return None


def _is_module_root(path: Path, *, our_layout: bool) -> bool:
    if path.name.startswith(_REPO_PREFIX):
        return find_module_package(path) is not None
    # this project's layout: modules/<id>/amplifier_module_<id_>/
    return our_layout and (path / (_PACKAGE_PREFIX + path.name.replace("-", "_")) / "__init__.py").is_file()


def _walk_up_to_module(start: Path, *, our_layout: bool) -> Path | None:
    for candidate in (start, *start.parents):
        if candidate.name.startswith(_PACKAGE_PREFIX) and (candidate / "__init__.py").is_file() \
                and candidate.parent.name.startswith(_REPO_PREFIX):
            return candidate
        if _is_module_root(candidate, our_layout=our_layout):
            return find_module_package(candidate)
    return None


def _context_from_option(option: str) -> ModuleContext:
    path = Path(option).expanduser().resolve()
    stand_in = _polyglot_stand_in(path) if path.exists() else None
    if stand_in is not None:  # a gRPC, native or WASM module (amplifier.toml)
        return ModuleContext(path, stand_in.__amplifier_module_type__)
    package = find_module_package(path) if path.exists() else None
    if package is None:
        raise pytest.UsageError(
            f"--module-path {option}: no amplifier module package there. Point it at a package directory "
            "(with __init__.py defining mount) or at a directory holding one amplifier_module_* package."
        )
    module_type = module_type_from_name(package.name) or module_type_from_name(path.name)
    return ModuleContext(package, module_type)


def _detect_context(config: pytest.Config) -> ModuleContext:
    option = config.getoption("module_path", default=None)
    if option:
        return _context_from_option(option)
    candidates = [Path.cwd(), Path(str(config.rootpath))]
    candidates += [Path(str(arg).split("::")[0]) for arg in config.args]
    for candidate in candidates:
        candidate = candidate.resolve()
        if candidate.is_file():
            candidate = candidate.parent
        for directory in (candidate, *candidate.parents):
            if _is_module_root(directory, our_layout=False):
                package = find_module_package(directory)
                return ModuleContext(package, module_type_from_name(directory.name))
        package = _package_directly_inside(candidate)
        if package is not None:  # a checkout under any name (2.0.2 looks at the candidate's children too)
            return ModuleContext(package, module_type_from_name(package.name))
    return ModuleContext(None, None)


def _package_directly_inside(directory: Path) -> Path | None:
    """The first ``amplifier_module_<type>_...`` package among ``directory``'s children, by name."""
    if not directory.is_dir():
        return None
    for child in sorted(directory.iterdir()):
        if child.name.startswith(_PACKAGE_PREFIX) and module_type_from_name(child.name) \
                and (child / "__init__.py").is_file():
            return child
    return None


class AmplifierModulePlugin:
    """Where the module under test is, as detected once per pytest run (2.0.2's plugin class).

    The detection itself is :func:`_detect_context`; this object keeps its answer under 2.0.2's attribute
    names for code that inspects the plugin.
    """

    def __init__(self) -> None:
        self.module_path: Path | None = None
        self.module_type: str | None = None
        self._detected = False

    def detect(self, config: Any) -> None:
        if self._detected:
            return
        self._detected = True
        context = _detect_context(config)
        self.module_path, self.module_type = context.package_dir, context.module_type


_plugin = AmplifierModulePlugin()


# -- hooks ------------------------------------------------------------------------------------------------
def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("amplifier", "amplifier module testing")
    group.addoption("--module-path", action="store", default=None, dest="module_path",
                    help="The amplifier module under test (package dir or module repository dir).")
    group.addoption("--module-config", action="store", default=None, dest="module_config",
                    help="JSON object passed as config to the module's mount() (e.g. '{\"api_key\": \"x\"}').")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "module_validation: a test that validates an amplifier module")
    config.stash[_CONTEXT_KEY] = context = _detect_context(config)
    _plugin.module_path, _plugin.module_type, _plugin._detected = context.package_dir, context.module_type, True
    config.stash[_CONFIG_KEY] = _parse_module_config(config.getoption("module_config", default=None))


def _parse_module_config(raw: str | None) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as error:
        raise pytest.UsageError(f"--module-config is not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise pytest.UsageError("--module-config must be a JSON object, e.g. '{\"api_key\": \"x\"}'")
    return value


def _kernel_suite_type(path: Path) -> str | None:
    for suite in _KERNEL_SUITES:
        if path.parent == suite:
            name = path.stem.removeprefix("test_")
            return name if name in _SUITE_TYPES else None
    return None


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    context = config.stash.get(_CONTEXT_KEY, ModuleContext(None, None))
    for item in items:
        suite_type = _kernel_suite_type(Path(str(item.path)))
        if suite_type is None:
            continue
        if context.package_dir is None:
            item.add_marker(pytest.mark.skip(reason="kernel module suite: needs a module under test (--module-path)"))
        elif context.module_type and suite_type != context.module_type:
            item.add_marker(pytest.mark.skip(
                reason=f"{suite_type} suite does not apply to a {context.module_type} module"))


# -- fixtures ---------------------------------------------------------------------------------------------
@pytest.fixture
def module_path(request: pytest.FixtureRequest) -> Path | None:
    """The package directory of the module under test, or None outside a module context."""
    context: ModuleContext = request.config.stash.get(_CONTEXT_KEY, ModuleContext(None, None))
    if request.config.getoption("module_path", default=None):
        return context.package_dir
    found = _walk_up_to_module(Path(str(request.path)).parent, our_layout=True)
    return found if found is not None else context.package_dir


@pytest.fixture
def module_type(request: pytest.FixtureRequest) -> str | None:
    """The type (provider, tool, hook, orchestrator, context) of the module under test, or None."""
    module_path = request.getfixturevalue("module_path")
    if module_path is None:
        return None
    return module_type_from_name(module_path.name) or module_type_from_name(module_path.parent.name)


@pytest.fixture
def is_module_context() -> bool:
    """Whether this pytest run found a module under test."""
    return _plugin.module_path is not None


@pytest.fixture
def module_config(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The config handed to mount() by the module fixtures (``--module-config``, default ``{}``)."""
    config: dict[str, Any] = request.config.stash.get(_CONFIG_KEY, {})
    return dict(config)


@pytest.fixture
def coordinator() -> Any:
    from amplifier_core.testing import MockCoordinator

    return MockCoordinator()


@pytest.fixture
def mock_deps(coordinator: Any) -> tuple[Any, dict[str, Any], dict[str, Any], Any]:
    """(context, providers, tools, hooks) for driving an orchestrator by hand."""
    from amplifier_core.testing import EventRecorder, MockContextManager, MockProvider, MockTool

    return (MockContextManager(), {"default": MockProvider()},
            {"test_tool": MockTool("test_tool", "test result")}, EventRecorder())


def _polyglot_stand_in(path: Path) -> Any:
    """The stand-in package of a non-Python module directory (None for a Python one); a bad manifest is a
    usage error naming the file and key."""
    from amplifier_core.module_manifest import ManifestError
    from amplifier_core.polyglot import polyglot_package

    try:
        return polyglot_package(path)
    except ManifestError as error:
        raise pytest.UsageError(str(error)) from None


def _import_module_package(package_dir: Path) -> Any:
    from amplifier_core.loader import import_package_from_path

    stand_in = _polyglot_stand_in(package_dir)
    if stand_in is not None:
        return stand_in
    return import_package_from_path(package_dir.name, package_dir)


async def _call_cleanup(cleanup: Any) -> None:
    if callable(cleanup):
        outcome = cleanup()
        if inspect.isawaitable(outcome):
            await outcome


async def _mounted_instance(module_path: Path | None, coordinator: Any, config: dict[str, Any],
                            mount_point: str) -> AsyncIterator[Any]:
    if module_path is None:
        pytest.skip("no module under test: run with --module-path=PATH")
    module = _import_module_package(module_path)
    cleanup = await module.mount(coordinator, dict(config))
    mounted = coordinator.mount_points.get(mount_point)
    instance = next(iter(mounted.values()), None) if isinstance(mounted, dict) else mounted
    try:
        if instance is None:
            pytest.fail(f"mount() of {module_path.name} mounted nothing at '{mount_point}'. If it needs config "
                        "(an API key, say), pass it with --module-config='{...}'")
        yield instance
    finally:
        await _call_cleanup(cleanup)
        await coordinator.cleanup()


@_async_fixture
async def provider_module(module_path: Path | None, coordinator: Any, module_config: dict[str, Any]) -> Any:
    async for instance in _mounted_instance(module_path, coordinator, module_config, "providers"):
        yield instance


@_async_fixture
async def tool_module(module_path: Path | None, coordinator: Any, module_config: dict[str, Any]) -> Any:
    async for instance in _mounted_instance(module_path, coordinator, module_config, "tools"):
        yield instance


@_async_fixture
async def orchestrator_module(module_path: Path | None, coordinator: Any, module_config: dict[str, Any]) -> Any:
    async for instance in _mounted_instance(module_path, coordinator, module_config, "orchestrator"):
        yield instance


@_async_fixture
async def context_module(module_path: Path | None, coordinator: Any, module_config: dict[str, Any]) -> Any:
    async for instance in _mounted_instance(module_path, coordinator, module_config, "context"):
        yield instance


@_async_fixture
async def hook_cleanup(module_path: Path | None, coordinator: Any, module_config: dict[str, Any]) -> Any:
    """Mounts the hook module on ``coordinator`` and yields the cleanup mount() returned (None if it returned
    nothing callable)."""
    if module_path is None:
        pytest.skip("no module under test: run with --module-path=PATH")
    module = _import_module_package(module_path)
    cleanup = await module.mount(coordinator, dict(module_config))
    if not callable(cleanup):  # as 2.0.2's loader: only a callable is a cleanup
        cleanup = None
    try:
        yield cleanup
    finally:
        await _call_cleanup(cleanup)
        await coordinator.cleanup()


@pytest.fixture
def replay_cassette() -> Any:
    """``replay_cassette(session, directory, replay_tools=False)``: answer the session's provider calls from a
    cassette recorded with ``amplifier run --record DIR`` (no key, no network). Call it after
    ``await session.initialize()``; the recorded providers stand in for those that did not mount. A request the
    cassette does not hold raises ``amplifier_core.cassette.ReplayMismatch`` naming the first message that differs.
    Returns the ``Cassette``."""
    from .cassette import Cassette, attach_cassette

    def replay(session: Any, directory: Path | str, *, replay_tools: bool = False) -> Any:
        coordinator = getattr(session, "coordinator", session)
        cassette = Cassette(Path(directory), "replay", replay_tools=replay_tools)
        attach_cassette(coordinator, cassette)
        return cassette

    return replay
