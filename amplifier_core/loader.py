"""Finds a module by id, imports it and hands back a mount function bound to one config.

Resolution: the ``module-source-resolver`` mount point (app policy) answers with a directory; without a
resolver, or when it does not know the id, installed entry points (group ``amplifier.modules``) and then the
import name ``amplifier_module_<id>`` are tried. A path from the resolver always wins over an installed
package of the same id, so workspace and env overrides of bundled modules work.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import inspect
import logging
import os
import sys
import weakref
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from importlib.metadata import EntryPoint
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any

from .models import ModuleInfo
from .module_errors import ModuleDiscoveryError, ModuleValidationError
from .module_ids import PACKAGE_PREFIX, REPOSITORY_PREFIX, find_package_dir, guess_module_type, package_name
from .module_import import SourceConflictError, import_module_from_path
from .module_sources import ModuleNotFoundError as SourceNotFoundError

if TYPE_CHECKING:
    from .coordinator import ModuleCoordinator

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "amplifier.modules"
TYPE_TO_MOUNT_POINT = {
    "orchestrator": "orchestrator",
    "provider": "providers",
    "tool": "tools",
    "hook": "hooks",
    "context": "context",
    "resolver": "module-source-resolver",
}

MountFunction = Callable[..., Awaitable[Any]]


MODULE_FAILURE_REASONS = frozenset({
    "invalid_package_layout", "missing_source", "invalid_entry_point",
    "invalid_module_metadata", "validation_failed", "unknown",
})
"""The bounded set of ``reason_code`` values a module load failure is reported with."""


def module_failure_reason(error: BaseException) -> str:
    """The failure's category from :data:`MODULE_FAILURE_REASONS`, without parsing its text."""
    if isinstance(error, SourceNotFoundError):
        return "missing_source"
    code = getattr(error, "reason_code", None) if isinstance(error, (ModuleValidationError,
                                                                      ModuleDiscoveryError)) else None
    return code if isinstance(code, str) and code in MODULE_FAILURE_REASONS else "unknown"


def check_mount_shape(module_id: str, mount: Any, where: str) -> None:
    """Cheap structural check done at load time (the full protocol check is validation's job)."""
    if mount is None or not callable(mount):
        raise ModuleValidationError(
            f"Module '{module_id}' ({where}) has no mount function: define `async def mount(coordinator, config)`",
            reason_code="invalid_entry_point",
        )
    target = mount.func if hasattr(mount, "func") else mount
    if not inspect.iscoroutinefunction(target):
        raise ModuleValidationError(
            f"Module '{module_id}' ({where}): mount() must be async: `async def mount(coordinator, config)`",
            reason_code="invalid_entry_point",
        )
    try:
        parameters = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    if len(positional) < 2 and not any(p.kind is p.VAR_POSITIONAL for p in parameters):
        raise ModuleValidationError(
            f"Module '{module_id}' ({where}): mount() takes {len(positional)} parameter(s); it must take "
            "(coordinator, config)",
            reason_code="invalid_entry_point",
        )


def _missing_dependency_message(module_id: str, where: str, error: ImportError) -> str:
    missing = getattr(error, "name", None)
    if missing and not missing.startswith(PACKAGE_PREFIX):
        top = missing.split(".")[0]
        return (
            f"Module '{module_id}' ({where}) needs the Python package '{top}', which is not installed. "
            f"Install it into amplifier's environment (for example: pip install {top})"
        )
    return f"Module '{module_id}' ({where}) failed to import: {error}"


# Entry points of the amplifier.modules group by name. Scanning installed distributions costs 15-20 ms, so the
# table is kept while sys.path and its folders are unchanged: installing or removing a distribution adds or
# removes a dist-info folder, which changes the modification time of the folder it is in (a new sys.path, a
# changed folder, or clear_entry_point_cache() rescans).
_entry_point_cache: dict[tuple[Any, tuple[tuple[str, int], ...]], Mapping[str, EntryPoint]] = {}


def clear_entry_point_cache() -> None:
    """Forget the scanned entry points (call after installing a module package into a running process)."""
    _entry_point_cache.clear()


def installed_entry_points() -> Mapping[str, EntryPoint]:
    """Every ``amplifier.modules`` entry point by module id (the first a distribution declares wins), from the
    kept scan: what the app lists, checks and mounts all come from one table."""
    scan = importlib.metadata.entry_points  # looked up per call, so a patched importlib.metadata is honoured
    key = (scan, _search_path_state())
    table = _entry_point_cache.get(key)
    if table is None:
        found: dict[str, EntryPoint] = {}
        for entry in scan(group=ENTRY_POINT_GROUP):
            found.setdefault(entry.name, entry)
        table = MappingProxyType(found)  # read-only: every caller shares it
        _entry_point_cache.clear()
        _entry_point_cache[key] = table
    return table


def _search_path_state() -> tuple[tuple[str, int], ...]:
    """sys.path, each entry with its modification time (-1 for one that is not there)."""
    state = []
    for entry in sys.path:
        try:
            state.append((entry, os.stat(entry or ".").st_mtime_ns))
        except (OSError, TypeError, ValueError):
            state.append((str(entry), -1))
    return tuple(state)


def installed_entry_point(module_id: str) -> EntryPoint | None:
    """The first ``amplifier.modules`` entry point named ``module_id``, if any distribution declares one."""
    return installed_entry_points().get(module_id)


def _entry_module(entry: Any) -> str | None:
    """The import name an entry point loads from (``pkg`` of ``pkg:mount``), when it says."""
    value = getattr(entry, "value", None)
    return value.split(":")[0] if isinstance(value, str) and value else None


def _with_ready_hook(module_id: str, module: ModuleType | None, mount: Any) -> Any:
    """``mount``, carrying the module's async ``on_session_ready`` as ``__on_session_ready__`` (2.0.2's
    convention); a sync one is refused with a warning."""
    on_ready = getattr(module, "on_session_ready", None) if module is not None else None
    if on_ready is not None and mount is not None:
        if inspect.iscoroutinefunction(on_ready):
            mount.__on_session_ready__ = (module_id, on_ready)
        else:
            logger.warning("module %s defines on_session_ready() as sync; it must be async and is ignored",
                           module_id)
    return mount


# Packages imported from a resolver's path, by import name. A later direct (entry point / import name) load
# must not pick these up from sys.modules: it has to import the installed package again.
_PATH_IMPORTS: dict[str, ModuleType] = {}
# The module object whose structure last passed its validator, per module id (a re-import is checked again).
_STRUCTURE_CHECKED: dict[str, ModuleType] = {}


def _forget_path_import(import_name: str) -> None:
    """Drop a path-imported package (and its submodules) from sys.modules so the installed one can load."""
    top = import_name.split(".")[0]
    module = _PATH_IMPORTS.pop(top, None)
    if module is not None and sys.modules.get(top) is module:
        for loaded in [key for key in list(sys.modules) if key == top or key.startswith(top + ".")]:
            del sys.modules[loaded]


# sys.path entries that loaders added for resolver paths, with how many live loaders added each. While an
# override's session lives its directory stays on sys.path, where it would shadow the installed package of the
# same import name for every other session in the process; direct loads hide these entries while importing.
_OVERRIDE_ROOTS: dict[str, int] = {}


@contextmanager
def _override_roots_hidden(own: list[str]) -> Iterator[None]:
    """Take the resolver paths other loaders added off sys.path for the duration (``own`` ones stay)."""
    removed = [(index, entry) for index, entry in enumerate(sys.path)
               if entry in _OVERRIDE_ROOTS and entry not in own]
    if not removed:
        yield
        return
    for index, _ in reversed(removed):
        del sys.path[index]
    importlib.invalidate_caches()
    try:
        yield
    finally:
        for index, entry in removed:
            sys.path.insert(index, entry)


# Which live loaders mounted the package now in sys.modules under an import name from a resolver's path. Such a
# package is the canonical object those sessions run, so another source for the same name is refused (as
# 2.0.2 refuses); a package nobody claims (imported directly, or by a loader since cleaned up or collected)
# may be replaced by a resolver's override.
_PATH_CLAIMS: dict[str, weakref.WeakSet[ModuleLoader]] = {}


def _claimed_by_live_loader(name: str) -> bool:
    return bool(_PATH_CLAIMS.get(name))


def _forget_tree(name: str) -> None:
    for loaded in [key for key in list(sys.modules) if key == name or key.startswith(name + ".")]:
        del sys.modules[loaded]


def import_package_from_path(name: str, package_dir: Path) -> ModuleType:
    """Import package ``name`` from ``package_dir``, replacing a same-named package imported from elsewhere."""
    existing = sys.modules.get(name)
    existing_file = getattr(existing, "__file__", None)
    if existing is not None and existing_file == str(package_dir / "__init__.py"):
        return existing  # fast path: same spelling of the same path, no filesystem walk needed
    package_dir = package_dir.resolve()
    if existing is not None and existing_file and Path(existing_file).resolve().parent == package_dir:
        return existing
    for loaded in [key for key in list(sys.modules) if key == name or key.startswith(name + ".")]:
        del sys.modules[loaded]
    spec = importlib.util.spec_from_file_location(
        name, package_dir / "__init__.py", submodule_search_locations=[str(package_dir)]
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {name} from {package_dir}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    _PATH_IMPORTS[name] = module
    return module


class ModuleLoader:
    def __init__(self, coordinator: ModuleCoordinator | None = None, search_paths: list[Path] | None = None):
        self._coordinator = coordinator
        self.search_paths = search_paths
        # Applied to each module's config just before mount(); the app uses it to expand ${VAR} references
        # so the stored mount plan never holds secrets.
        self.prepare_config: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None
        # Applied to the command line of a native (``transport = "rust"``) module before it starts; the app uses
        # it to confine the process with the sandbox, as it confines every other process it starts.
        self.wrap_process: Callable[[list[str]], list[str]] | None = None
        self._loaded: dict[tuple[str, str | None], tuple[MountFunction, Any]] = {}
        self._module_info: dict[str, ModuleInfo] = {}
        self._added_paths: list[str] = []
        self._on_session_ready_queue: list[tuple[str, Callable[..., Awaitable[Any]]]] = []
        # 2.0.2's names: module id -> raw mount function, and -> the resolved root it came from (path loads)
        self._loaded_modules: dict[str, MountFunction] = {}
        self._loaded_module_paths: dict[str, Path] = {}
        self._direct_imports: set[str] = set()  # import names this loader imported without a resolver
        self._claimed: set[str] = set()

    @property
    def coordinator(self) -> ModuleCoordinator | None:
        return self._coordinator

    @coordinator.setter
    def coordinator(self, value: ModuleCoordinator | None) -> None:
        self._coordinator = value

    # -- discovery ---------------------------------------------------------------------------------
    async def discover(self) -> list[ModuleInfo]:
        found: dict[str, ModuleInfo] = {}
        for entry in installed_entry_points().values():
            found.setdefault(entry.name, self._describe(entry.name, _entry_module(entry) or package_name(entry.name)))
        paths = self.search_paths
        if paths is None:
            env = os.environ.get("AMPLIFIER_MODULES", "")
            paths = [Path(item) for item in env.split(os.pathsep) if item]
        for root in paths:
            if not Path(root).is_dir():
                continue
            for child in sorted(Path(root).iterdir()):
                if child.is_dir() and child.name.startswith(REPOSITORY_PREFIX):
                    module_id = child.name.removeprefix(REPOSITORY_PREFIX)
                    found.setdefault(module_id, self._describe(module_id, package_name(module_id)))
        self._module_info.update(found)
        return list(found.values())

    def _describe(self, module_id: str, import_name: str) -> ModuleInfo:
        module_type = guess_module_type(module_id)
        try:
            declared = getattr(importlib.import_module(import_name), "__amplifier_module_type__", None)
            if declared is not None:
                if declared not in TYPE_TO_MOUNT_POINT:
                    raise ModuleValidationError(f"unknown module type {declared!r}")
                module_type = declared
        except Exception as error:
            logger.debug("module %s: type taken from its id (%s)", module_id, error)
        return ModuleInfo(
            id=module_id,
            name=module_id.replace("-", " ").title(),
            version="1.0.0",
            type=module_type,
            mount_point=TYPE_TO_MOUNT_POINT[module_type],
            description=f"Module: {module_id}",
        )

    # -- loading -----------------------------------------------------------------------------------
    async def load(
        self,
        module_id: str,
        config: dict[str, Any] | None = None,
        source_hint: Any = None,
        coordinator: ModuleCoordinator | None = None,
    ) -> MountFunction:
        """Return ``async mount_fn(coordinator)`` that mounts ``module_id`` with this call's ``config``."""
        coordinator = coordinator or self.coordinator
        mount, on_ready = await self._find_mount(module_id, source_hint, coordinator)
        bound_config = dict(config or {})
        default_coordinator = coordinator

        async def mount_with_config(target: ModuleCoordinator | None = None) -> Any:
            effective = bound_config
            if self.prepare_config is not None:
                effective = self.prepare_config(module_id, bound_config)
            return await mount(target or default_coordinator, effective)

        mount_with_config.module_id = module_id  # type: ignore[attr-defined]
        mount_with_config.on_session_ready = on_ready  # type: ignore[attr-defined]
        if on_ready is not None:  # 2.0.2's spelling, read by upstream session code and tests
            mount_with_config.__on_session_ready__ = (module_id, on_ready)  # type: ignore[attr-defined]
        return mount_with_config

    async def _find_mount(
        self, module_id: str, source_hint: Any, coordinator: ModuleCoordinator | None
    ) -> tuple[MountFunction, Any]:
        resolver = None
        if coordinator is not None:
            try:
                resolver = coordinator.get("module-source-resolver")
            except ValueError:
                resolver = None
        if resolver is not None:
            try:
                if hasattr(resolver, "async_resolve"):
                    source = await resolver.async_resolve(module_id, source_hint=source_hint, profile_hint=source_hint)
                else:
                    source = resolver.resolve(module_id, source_hint=source_hint, profile_hint=source_hint)
                path = Path(source.resolve())
            except SourceNotFoundError:
                logger.debug("resolver does not know %s; trying installed packages", module_id)
            else:
                return self._load_from_path(module_id, path)
        return self._load_direct(module_id)

    def _load_from_path(self, module_id: str, path: Path) -> tuple[MountFunction, Any]:
        key = (module_id, str(path))
        if key in self._loaded:
            return self._loaded[key]
        if not path.exists():
            raise ModuleValidationError(f"Module '{module_id}' resolved to {path}, which does not exist",
                                        reason_code="missing_source")
        root = path.resolve()
        earlier = self._loaded_module_paths.get(module_id)
        if earlier is not None and earlier != root:
            raise ImportError(f"Refusing to load '{module_id}' from {root}: it is already loaded from {earlier}")
        from .module_manifest import read_manifest

        manifest = read_manifest(module_id, path)
        if manifest.transport != "python":  # a gRPC service, native executable or WASM component (polyglot/)
            from .polyglot import mount_function

            self._loaded_module_paths[module_id] = root
            return self._remember(key, None, mount_function(manifest, lambda argv: self._wrapped(argv)))
        package_dir = find_package_dir(module_id, path)
        if package_dir is None:
            raise ModuleValidationError(
                f"Module '{module_id}' has no valid Python package at {path} "
                f"(expected {package_name(module_id)}/__init__.py)",
                reason_code="invalid_package_layout",
            )
        import_root = str(package_dir.parent)
        if import_root not in sys.path:
            sys.path.insert(0, import_root)
            self._added_paths.append(import_root)
            _OVERRIDE_ROOTS[import_root] = _OVERRIDE_ROOTS.get(import_root, 0) + 1
        module = self._import_canonical(module_id, package_dir, str(path))
        mount = getattr(module, "mount", None)
        check_mount_shape(module_id, mount, str(path))
        self._check_structure(module_id, module, package_dir)
        self._loaded_module_paths[module_id] = root
        return self._remember(key, module, mount)

    def _wrapped(self, argv: list[str]) -> list[str]:
        return self.wrap_process(argv) if self.wrap_process is not None else argv

    def _import_canonical(self, module_id: str, package_dir: Path, where: str) -> ModuleType:
        """Import the package at ``package_dir`` under its real name, the object validation also sees.

        A same-named package from another source that a live loader mounted (or this one imported directly)
        is refused; one nobody claims is replaced, so an override of an installed module works."""
        name = package_dir.name
        existing = sys.modules.get(name)
        existing_file = getattr(existing, "__file__", None)
        init_file = package_dir / "__init__.py"
        if existing is not None and existing_file != str(init_file):
            same = existing_file is not None and Path(existing_file).resolve() == init_file.resolve()
            if not same and not _claimed_by_live_loader(name) and name not in self._direct_imports:
                _forget_tree(name)
        try:
            module = import_module_from_path(package_dir)
        except SourceConflictError as error:
            raise ModuleValidationError(f"Module '{module_id}': {error}") from error
        except ImportError as error:
            raise ValueError(_missing_dependency_message(module_id, where, error)) from error
        _PATH_IMPORTS[name] = module
        _PATH_CLAIMS.setdefault(name, weakref.WeakSet()).add(self)
        self._claimed.add(name)
        return module

    def _check_structure(self, module_id: str, module: ModuleType, package_dir: Path) -> None:
        """Run the module type's validator on the canonical module (the checks that need no mount), once per
        module object: every later session mounting the same module reuses the verdict."""
        if _STRUCTURE_CHECKED.get(module_id) is module:
            return
        from .validation import VALIDATORS

        declared = getattr(module, "__amplifier_module_type__", None)
        module_type = declared if declared in VALIDATORS else guess_module_type(module_id)
        validator = VALIDATORS.get(module_type)
        if validator is None:
            return
        result = validator().check_structure(module, package_dir)
        if not result.passed:
            details = "; ".join(f"{check.name}: {check.message}" for check in result.errors)
            raise ModuleValidationError(f"Module '{module_id}' failed validation: {details}",
                                        reason_code="invalid_entry_point")
        _STRUCTURE_CHECKED[module_id] = module

    def _load_direct(self, module_id: str) -> tuple[MountFunction, Any]:
        key = (module_id, None)
        if key in self._loaded:
            return self._loaded[key]
        entry = installed_entry_point(module_id)
        if entry is not None:
            entry_module = _entry_module(entry)
            where = f"entry point {getattr(entry, 'value', entry.name)}"
            if entry_module:
                _forget_path_import(entry_module)
            try:
                with _override_roots_hidden(self._added_paths):
                    mount = entry.load()
            except ImportError as error:
                raise ValueError(_missing_dependency_message(module_id, where, error)) from error
            except AttributeError:
                mount = None  # the entry point names an attribute the package lacks; reported just below
            check_mount_shape(module_id, mount, where)
            module = sys.modules.get(entry_module or getattr(mount, "__module__", "") or "")
            if entry_module:
                self._direct_imports.add(entry_module.split(".")[0])
            return self._remember(key, module, mount)
        _forget_path_import(package_name(module_id))
        try:
            with _override_roots_hidden(self._added_paths):
                module = importlib.import_module(package_name(module_id))
        except ImportError as error:
            if getattr(error, "name", None) == package_name(module_id):
                raise ModuleDiscoveryError(f"Module '{module_id}' not found via entry points or filesystem") from error
            raise ValueError(_missing_dependency_message(module_id, package_name(module_id), error)) from error
        mount = getattr(module, "mount", None)
        check_mount_shape(module_id, mount, package_name(module_id))
        self._direct_imports.add(package_name(module_id))
        return self._remember(key, module, mount)

    def _remember(self, key: tuple[str, str | None], module: ModuleType | None, mount: Any) -> tuple[Any, Any]:
        on_ready = getattr(module, "on_session_ready", None) if module is not None else None
        if on_ready is not None and not inspect.iscoroutinefunction(on_ready):
            logger.warning("module %s defines a sync on_session_ready; it must be async and is ignored", key[0])
            on_ready = None
        self._loaded[key] = (mount, on_ready)
        self._loaded_modules[key[0]] = mount
        return mount, on_ready

    async def initialize(self, module: MountFunction, coordinator: ModuleCoordinator) -> Any:
        return await module(coordinator)

    # -- on_session_ready queue ----------------------------------------------------------------------
    def enqueue_on_session_ready(self, module_id: str, fn: Callable[..., Awaitable[Any]]) -> None:
        self._on_session_ready_queue.append((module_id, fn))

    def get_on_session_ready_queue(self) -> list[tuple[str, Callable[..., Awaitable[Any]]]]:
        return list(self._on_session_ready_queue)

    def clear_on_session_ready_queue(self) -> None:
        self._on_session_ready_queue.clear()

    # -- 2.0.2's private helpers, kept because module tooling and upstream tests call them -------------
    def _load_entry_point(self, module_id: str) -> Callable[..., Any] | None:
        """The raw mount function of the ``amplifier.modules`` entry point named ``module_id``, or None."""
        entry = installed_entry_point(module_id)
        if entry is None:
            return None
        try:
            mount = entry.load()
        except Exception:
            logger.exception("could not load %r via its entry point", module_id)
            return None
        module = sys.modules.get(getattr(mount, "__module__", None) or "")
        return _with_ready_hook(module_id, module, mount)

    def _load_filesystem(self, module_id: str, module_name: str | None = None) -> Callable[..., Any] | None:
        """The raw mount function of importable package ``amplifier_module_<id>``, or None."""
        try:
            module = importlib.import_module(module_name or package_name(module_id))
        except Exception as error:
            logger.debug("could not import %r: %s", module_id, error)
            return None
        mount = getattr(module, "mount", None)
        return _with_ready_hook(module_id, module, mount) if mount is not None else None

    def _find_package_dir(self, module_id: str, module_path: Path) -> Path | None:
        """The package directory for ``module_id`` in ``module_path``; None (never an error) if there is none."""
        return find_package_dir(module_id, module_path)

    async def _validate_module(self, module_id: str, module_path: Path,
                               config: dict[str, Any] | None = None) -> Path:
        """Check that ``module_path`` holds an importable module with a valid type declaration and an async
        ``mount(coordinator, config)``; raise ModuleValidationError with a reason code otherwise.

        The protocol checks of the validation framework are ``amplifier module validate``'s job; this is the
        structural part the loader itself can vouch for.
        """
        package_dir = find_package_dir(module_id, module_path)
        if package_dir is None:
            raise ModuleValidationError(
                f"Module '{module_id}' has no valid Python package at {module_path}",
                reason_code="invalid_package_layout" if module_path.exists() else "missing_source",
            )
        try:
            module = import_package_from_path(package_dir.name, package_dir)
        except ImportError as error:
            raise ModuleValidationError(_missing_dependency_message(module_id, str(module_path), error),
                                        reason_code="invalid_package_layout") from error
        declared = getattr(module, "__amplifier_module_type__", None)
        if declared is not None and (not isinstance(declared, str) or declared not in TYPE_TO_MOUNT_POINT):
            raise ModuleValidationError(
                f"Module '{module_id}' has unknown type {declared!r}. Valid types: {sorted(TYPE_TO_MOUNT_POINT)}",
                reason_code="invalid_module_metadata",
            )
        check_mount_shape(module_id, getattr(module, "mount", None), str(module_path))
        return module_path

    def cleanup(self) -> None:
        """Undo this loader's sys.path insertions (newest first) and release its claim on the packages it
        mounted from resolver paths."""
        for name in self._claimed:
            claims = _PATH_CLAIMS.get(name)
            if claims is not None:
                claims.discard(self)
                if not claims:
                    del _PATH_CLAIMS[name]
        self._claimed.clear()
        for added in reversed(self._added_paths):
            remaining = _OVERRIDE_ROOTS.get(added, 1) - 1
            if remaining > 0:
                _OVERRIDE_ROOTS[added] = remaining
            else:
                _OVERRIDE_ROOTS.pop(added, None)
            try:
                sys.path.remove(added)
            except ValueError:
                pass
        self._added_paths.clear()
