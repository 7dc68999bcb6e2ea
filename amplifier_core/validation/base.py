"""Validation results and the shared machinery of the per-type module validators.

A validator imports a module the way the loader does, under its real name (the canonical module object the
runtime will mount, as 2.0.2: validating never makes a second copy), checks that ``mount`` has the right
shape, mounts it on a throwaway ``RecordingCoordinator`` and inspects what got mounted with attribute checks
(never ``isinstance`` on a Protocol). ``isolated_import`` remains for callers that want a throwaway copy.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import itertools
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from ..module_ids import find_package_dir as find_module_package_dir
from ..module_import import SourceConflictError as SourceConflictError  # re-exported: 2.0.2's home of these
from ..module_import import import_module_from_path as import_module_from_path
from ..recording_coordinator import RecordingCoordinator

Severity = Literal["error", "warning", "info"]

_PRIVATE_PREFIX = "_amplifier_validating_"
_import_counter = itertools.count(1)


@dataclass
class ValidationCheck:
    name: str
    passed: bool
    message: str
    severity: Severity

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "message": self.message, "severity": self.severity}


class CheckTally:
    """What every list of named checks answers: it passes when no error-severity check failed (warnings do
    not fail it). Shared by ValidationResult and MountPlanValidationResult, which each hold ``checks``."""

    checks: list[ValidationCheck]

    def add(self, check: ValidationCheck) -> None:
        self.checks.append(check)

    @property
    def passed(self) -> bool:
        return not self.errors

    @property
    def errors(self) -> list[ValidationCheck]:
        return [check for check in self.checks if not check.passed and check.severity == "error"]

    @property
    def warnings(self) -> list[ValidationCheck]:
        return [check for check in self.checks if not check.passed and check.severity == "warning"]

    def summary(self) -> str:
        n_passed = sum(1 for check in self.checks if check.passed)
        verdict = "PASSED" if self.passed else "FAILED"
        return (f"{verdict}: {n_passed}/{len(self.checks)} checks passed "
                f"({len(self.errors)} errors, {len(self.warnings)} warnings)")


@dataclass
class ValidationResult(CheckTally):
    """Named checks of one module."""

    module_type: str
    module_path: str
    checks: list[ValidationCheck] = field(default_factory=list)

    def ok(self, name: str, message: str) -> None:
        self.checks.append(ValidationCheck(name, True, message, "info"))

    def fail(self, name: str, message: str, severity: Severity = "error") -> None:
        self.checks.append(ValidationCheck(name, False, message, severity))

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape ``amplifier module validate --output json`` prints."""
        return {
            "module_type": self.module_type,
            "module_path": self.module_path,
            "passed": self.passed,
            "checks": [check.to_dict() for check in self.checks],
        }


# -- callable shape helpers -------------------------------------------------------------------------------
def failed(name: str, message: str) -> ValidationCheck:
    """A failed error-severity check (the common case)."""
    return ValidationCheck(name, False, message, "error")


def is_async_callable(function: Any) -> bool:
    """True for ``async def`` functions and methods, partials of them, and objects with an async ``__call__``."""
    if inspect.iscoroutinefunction(function):
        return True
    call = getattr(function, "__call__", None)  # noqa: B004 - an object's async __call__ counts
    return call is not None and inspect.iscoroutinefunction(call)


def accepts(function: Any, *args: Any, **kwargs: Any) -> bool:
    """Whether ``function`` can be called with these arguments (True when the signature is unknowable)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return True
    try:
        signature.bind(*args, **kwargs)
    except TypeError:
        return False
    return True


def positional_parameter_count(function: Any) -> int:
    parameters = inspect.signature(function).parameters.values()
    return sum(1 for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def check_mount_callable(module: Any) -> ValidationCheck:
    mount = getattr(module, "mount", None)
    if mount is None:
        return failed("mount_exists", "No mount() function found: define "
                      "`async def mount(coordinator, config)` in the package's __init__.py")
    if not callable(mount):
        return failed("mount_exists", f"mount is not callable (it is a {type(mount).__name__})")
    return ValidationCheck("mount_exists", True, "mount() function found", "info")


def check_mount_signature(mount: Any) -> ValidationCheck:
    try:
        parameters = list(inspect.signature(mount).parameters.values())
    except (TypeError, ValueError):
        parameters = None
    if parameters is not None and not any(p.kind is p.VAR_POSITIONAL for p in parameters):
        count = sum(1 for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
        if count < 2:
            return failed("mount_signature",
                          f"mount() should have at least 2 parameters (coordinator, config), found {count}")
    if not is_async_callable(mount):
        return failed("mount_signature", "mount() should be async (async def mount(...))")
    return ValidationCheck("mount_signature", True, "mount() is async with correct signature", "info")


def check_on_session_ready(module: Any) -> ValidationCheck | None:
    """A failed check when the module's optional ``on_session_ready`` is not ``async def
    on_session_ready(coordinator)``; None when it is absent or fine (as 2.0.2: only problems are reported)."""
    hook = getattr(module, "on_session_ready", None)
    if hook is None:
        return None
    if not callable(hook) or not is_async_callable(hook):
        return failed("on_session_ready_async",
                      "on_session_ready() must be async: use `async def on_session_ready(coordinator) -> None` "
                      "(a sync one is never awaited by the loader)")
    try:
        parameters = list(inspect.signature(hook).parameters.values())
    except (TypeError, ValueError):
        return None  # not introspectable: the loader will find out at runtime
    required = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                and p.default is p.empty]
    if not required and not any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return failed("on_session_ready_async",
                      "on_session_ready() must accept the coordinator argument: "
                      "`async def on_session_ready(coordinator) -> None`")
    return None


# -- isolated import --------------------------------------------------------------------------------------
def find_package_dir(path: Path) -> Path | None:
    """The package to validate: ``path`` itself when it has ``__init__.py``, else the
    ``amplifier_module_*`` package inside it (the layout of a module repository or ``modules/<id>/``)."""
    return find_module_package_dir(None, path)


def _looks_like_path(text: str) -> bool:
    return "/" in text or "\\" in text or text.startswith(".") or text.endswith(".py")


@contextmanager
def isolated_import(module_path: str | Path) -> Iterator[tuple[ModuleType | None, ValidationCheck]]:
    """Import a module for validation and undo the import afterwards.

    A directory or file is imported under a private unique name, with its parent directory on sys.path so
    absolute self-imports (``from amplifier_module_x.sub import y``) work too; every sys.modules entry and the
    sys.path entry added here are removed on exit. A dotted name is imported normally (it is installed).
    """
    path = Path(module_path)
    if not path.exists():
        text = str(module_path)
        if _looks_like_path(text):
            yield None, failed("module_importable",
                               f"Failed to import module: no such file or directory: {text}")
            return
        try:
            module = importlib.import_module(text)
        except ImportError as error:
            yield None, failed("module_importable", f"Failed to import module: {error}")
            return
        except Exception as error:
            yield None, failed("module_importable",
                               f"Error loading module: {type(error).__name__}: {error}")
            return
        yield module, ValidationCheck("module_importable", True, f"Imported {text}", "info")
        return

    if path.is_dir():
        package_dir = find_package_dir(path)
        if package_dir is None:
            yield None, failed(
                "module_importable",
                f"No __init__.py found in {path} (and no single amplifier_module_* package inside it); "
                "a module is a Python package whose __init__.py defines mount()",
            )
            return
        init_file, search_locations, real_name = package_dir / "__init__.py", [str(package_dir)], package_dir.name
        parent = package_dir.parent
    else:
        init_file, search_locations, real_name = path, None, path.stem
        parent = path.parent

    private_name = f"{_PRIVATE_PREFIX}{next(_import_counter)}_{real_name}"

    def owned(name: str) -> bool:
        return any(name == root or name.startswith(root + ".") for root in (private_name, real_name))

    # Hide an already-imported package of the same name so absolute self-imports resolve to the copy being
    # validated (which is first on sys.path for the duration), then put everything back as it was.
    hidden = {name: sys.modules.pop(name) for name in [key for key in list(sys.modules) if owned(key)]}
    parent_entry = str(parent.resolve())
    sys.path.insert(0, parent_entry)
    try:
        try:
            spec = importlib.util.spec_from_file_location(
                private_name, init_file, submodule_search_locations=search_locations
            )
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot build an import spec for {init_file}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[private_name] = module
            spec.loader.exec_module(module)
        except ImportError as error:
            yield None, failed("module_importable", f"Failed to import module: {error}")
            return
        except Exception as error:
            yield None, failed("module_importable",
                               f"Error loading module: {type(error).__name__}: {error}")
            return
        yield module, ValidationCheck("module_importable", True, f"Imported {init_file}", "info")
    finally:
        if parent_entry in sys.path:
            sys.path.remove(parent_entry)
        for name in [key for key in list(sys.modules) if owned(key)]:
            del sys.modules[name]
        sys.modules.update(hidden)


# -- the validator skeleton -------------------------------------------------------------------------------
class ModuleValidator:
    """Common steps: module_importable, mount_exists, mount_signature, on_session_ready_async,
    protocol_compliance, then the per-type checks of every mounted instance (subclasses)."""

    module_type: str = ""
    mount_point: str | None = None
    protocol_name: str = ""
    required_members: tuple[str, ...] = ()
    mount_timeout: float = 30.0

    async def validate(
        self, module_path: str | Path, entry_point: str | None = None, config: dict[str, Any] | None = None
    ) -> ValidationResult:
        """Validate the module at ``module_path``; ``config`` is what mount() receives (e.g. an API key).
        ``entry_point`` is accepted for compatibility and unused."""
        result = ValidationResult(module_type=self.module_type, module_path=str(module_path))
        module = self._check_importable(result, module_path)
        if module is None:
            return result
        mount = self._check_mount_exists(result, module)
        if mount is None:
            return result
        signature_passed = self._check_mount_signature(result, mount)
        ready_check = check_on_session_ready(module)
        if ready_check is not None:
            result.add(ready_check)
        self._check_declared_type(module, result)
        if signature_passed:
            await self._check_protocol(mount, config, result)
        return result

    def check_structure(self, module: Any, module_path: str | Path = "") -> ValidationResult:
        """The checks that need no mount (mount_exists, mount_signature), on an already imported module:
        what the loader runs on the canonical module it is about to mount."""
        result = ValidationResult(module_type=self.module_type, module_path=str(module_path))
        mount = self._check_mount_exists(result, module)
        if mount is not None:
            self._check_mount_signature(result, mount)
        return result

    # 2.0.2's step methods (module tooling and upstream tests call or patch them)
    def _check_importable(self, result: ValidationResult, module_path: str | Path) -> ModuleType | None:
        """Import the module canonically (see import_module_from_path); None, with a failed check, if not."""
        path = Path(module_path)
        if not path.exists():
            text = str(module_path)
            if _looks_like_path(text):
                result.add(failed("module_importable", f"Failed to import module: no such file or directory: {text}"))
                return None
            target: Path | None = None
        elif path.is_dir() or path.suffix == ".wasm":
            stand_in = self._polyglot_stand_in(result, path)
            if stand_in is not None:
                return stand_in if stand_in is not False else None
            target = find_package_dir(path)
            if target is None:
                result.add(failed(
                    "module_importable",
                    f"No __init__.py found in {path} (and no single amplifier_module_* package inside it); "
                    "a module is a Python package whose __init__.py defines mount()",
                ))
                return None
        else:
            target = path
        try:
            if target is not None:
                module = import_module_from_path(target)
            else:
                module = importlib.import_module(str(module_path))
        except ImportError as error:
            result.add(failed("module_importable", f"Failed to import module: {error}"))
            return None
        except Exception as error:
            result.add(failed("module_importable", f"Error loading module: {type(error).__name__}: {error}"))
            return None
        result.ok("module_importable", f"Module loaded from {target if target is not None else module_path}")
        return module

    def _polyglot_stand_in(self, result: ValidationResult, path: Path) -> Any:
        """For a gRPC, native or WASM module (amplifier.toml): its stand-in package, after a check of its
        manifest; False when the manifest fails; None for a Python module."""
        from ..module_manifest import ManifestError
        from ..polyglot import polyglot_package

        try:
            stand_in = polyglot_package(path)
        except ManifestError as error:
            result.add(failed("module_manifest", str(error)))
            return False
        except ImportError as error:
            result.add(failed("module_manifest", f"Cannot read the module: {error}"))
            return False
        if stand_in is None:
            return None
        manifest = stand_in.amplifier_manifest
        result.ok("module_manifest", f"{manifest.where.name}: {manifest.transport} {manifest.module_type} module")
        return stand_in

    def _check_mount_exists(self, result: ValidationResult, module: Any) -> Any:
        check = check_mount_callable(module)
        result.add(check)
        return module.mount if check.passed else None

    def _check_mount_signature(self, result: ValidationResult, mount_fn: Any) -> bool:
        check = check_mount_signature(mount_fn)
        result.add(check)
        return check.passed

    def _check_declared_type(self, module: Any, result: ValidationResult) -> None:
        declared = getattr(module, "__amplifier_module_type__", None)
        if declared is not None and declared != self.module_type:
            result.fail("module_type_declared",
                        f"The module declares __amplifier_module_type__ = {declared!r} but is being validated "
                        f"as a {self.module_type}", "warning")

    async def _check_protocol(self, mount: Any, config: dict[str, Any] | None, result: ValidationResult) -> None:
        coordinator = RecordingCoordinator()
        returned: Any = None
        try:
            returned = await asyncio.wait_for(mount(coordinator, dict(config or {})), self.mount_timeout)
            await self._inspect_mounted(coordinator, returned, result)
        except TimeoutError:
            result.fail("protocol_compliance", f"mount() did not finish within {self.mount_timeout:g}s")
        except Exception as error:
            result.fail("protocol_compliance",
                        f"Error during protocol compliance check: {type(error).__name__}: {error}")
        finally:
            await _run_cleanups(returned, coordinator)

    async def _inspect_mounted(
        self, coordinator: RecordingCoordinator, returned: Any, result: ValidationResult
    ) -> None:
        instances = self.mounted_instances(coordinator)
        if not instances:
            if returned is not None and not self.missing_members(returned):
                instances = {getattr(returned, "name", None) or self.module_type: returned}
            elif callable(returned):
                result.fail("protocol_compliance",
                            f"mount() returned a cleanup callable (no {self.module_type} mounted yet - may be "
                            "conditional on config)", "warning")
                return
            else:
                result.fail("protocol_compliance",
                            f"No {self.module_type} was mounted and mount() did not return a "
                            f"{self.protocol_name} instance. Mount it with "
                            f"`await coordinator.mount({self.mount_point!r}, instance)`; if mounting depends on "
                            "config (an API key, say), validate with that config")
                return
        for name, instance in instances.items():
            missing = self.missing_members(instance)
            label = self.instance_label(name)
            if missing:
                result.fail("protocol_compliance",
                            f"{label} does not implement {self.protocol_name} interface (missing "
                            + ", ".join(missing) + ")")
            else:
                result.ok("protocol_compliance", f"{label} implements {self.protocol_name} interface")
            await self.check_instance(name, instance, result)

    def instance_label(self, name: str) -> str:
        """How 2.0.2's checks name a mounted instance ("Provider 'x' implements Provider interface"; upstream
        tests look for those words)."""
        return f"{self.protocol_name} '{name}'"

    def mounted_instances(self, coordinator: RecordingCoordinator) -> dict[str, Any]:
        mounted = coordinator.mount_points.get(self.mount_point) if self.mount_point else None
        if isinstance(mounted, dict):
            return dict(mounted)
        return {self.module_type: mounted} if mounted is not None else {}

    def missing_members(self, instance: Any) -> list[str]:
        return [member for member in self.required_members if not _has_member(instance, member)]

    async def check_instance(self, name: str, instance: Any, result: ValidationResult) -> None:
        """Per-type method checks; overridden by each validator."""


def _has_member(instance: Any, member: str) -> bool:
    try:
        return hasattr(instance, member)
    except Exception:  # a property that raises still exists
        return True


def check_async_method(instance: Any, method: str, check_name: str, *args: Any, passed_message: str | None = None,
                       **kwargs: Any) -> ValidationCheck:
    """``instance.method`` must exist, be async, and accept ``args``/``kwargs``; ``passed_message`` is what the
    check says when it passes (2.0.2's wording for the method, where it has one)."""
    function = getattr(instance, method, None)
    if function is None or not callable(function):
        return failed(check_name, f"{method}() is missing")
    if not is_async_callable(function):
        return failed(check_name, f"{method}() must be async (async def {method}(...))")
    if not accepts(function, *args, **kwargs):
        shown = ", ".join([*(repr(a) for a in args), *(f"{k}=..." for k in kwargs)]) or "no arguments"
        return failed(check_name, f"{method}() cannot be called with {shown}: "
                               f"its signature is {method}{_signature_text(function)}")
    return ValidationCheck(check_name, True, passed_message or f"{method}() is async with a usable signature", "info")


def _signature_text(function: Any) -> str:
    try:
        return str(inspect.signature(function))
    except (TypeError, ValueError):
        return "(...)"


async def _run_cleanups(returned: Any, coordinator: RecordingCoordinator) -> None:
    if callable(returned):
        try:
            outcome = returned()
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:
            pass
    try:
        await coordinator.cleanup()
    except Exception:
        pass
