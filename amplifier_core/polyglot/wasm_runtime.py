"""Running WebAssembly components with wasmtime: one engine per process with an epoch ticker (the CPU limit),
a store per mounted module with a memory limit and WASI without preopened directories, environment, arguments
or network, and calls made off the event loop so a component's host calls can await the session.

The interfaces a component may export are in wit/amplifier-modules.wit."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..module_manifest import ModuleManifest
from .errors import PolyglotLoadError, missing_extra

PACKAGE = "amplifier:modules"
INTERFACES = {"tool": "tool", "hook-handler": "hook", "context-manager": "context",
              "approval-provider": "approval", "provider": "provider", "orchestrator": "orchestrator"}
KERNEL_SERVICE = f"{PACKAGE}/kernel-service@1.0.0"
TICK_SECONDS = 0.01
DEFAULT_MEMORY_MB = 64
DEFAULT_CPU_SECONDS = 10.0
WIT_FILE = Path(__file__).with_name("wit") / "amplifier-modules.wit"


class ComponentTrap(RuntimeError):
    """A call into a component trapped (CPU limit, memory, a guest bug); the message says which."""


def wasmtime_api() -> Any:
    try:
        import wasmtime
        import wasmtime.component
    except ImportError as error:
        raise missing_extra("WASM", error) from None
    return wasmtime


_engine_lock = threading.Lock()
_engine: Any = None
_compiled: dict[tuple[str, int, int], Any] = {}


def engine() -> Any:
    """The process's engine (epoch interruption on) and its ticker thread, started on first use."""
    global _engine
    with _engine_lock:
        if _engine is None:
            wasmtime = wasmtime_api()
            config = wasmtime.Config()
            config.epoch_interruption = True
            _engine = wasmtime.Engine(config)
            ticker = threading.Thread(target=_tick, args=(_engine,), name="amplifier-wasm-epoch", daemon=True)
            ticker.start()
        return _engine


def _tick(target: Any) -> None:
    stop = threading.Event()  # never set: the ticker lives as long as the process
    while not stop.wait(TICK_SECONDS):
        target.increment_epoch()


def compile_component(manifest: ModuleManifest) -> Any:
    """The component of the manifest's artifact, compiled once per process per file version."""
    assert manifest.artifact is not None
    wasmtime = wasmtime_api()
    stat = manifest.artifact.stat()
    key = (str(manifest.artifact.resolve()), stat.st_mtime_ns, stat.st_size)
    component = _compiled.get(key)
    if component is None:
        try:
            component = wasmtime.component.Component.from_file(engine(), str(manifest.artifact))
        except Exception as error:  # wasmtime's parse/validation errors
            raise PolyglotLoadError(
                f"Module '{manifest.module_id}': {manifest.artifact} is not a WebAssembly component wasmtime can "
                f"compile ({str(error).splitlines()[0]}). Build it as a component of {PACKAGE}@1.0.0 "
                f"(see {WIT_FILE.name})") from None
        _compiled[key] = component
    return component


def detect_world(manifest: ModuleManifest, component: Any) -> tuple[str, str]:
    """(module type, export name) of the one module interface the component exports."""
    found = []
    for name in component.type.exports(engine()):
        interface = name.split("@", 1)[0]
        if interface.startswith(f"{PACKAGE}/") and interface.removeprefix(f"{PACKAGE}/") in INTERFACES:
            found.append((INTERFACES[interface.removeprefix(f"{PACKAGE}/")], name))
    if len(found) != 1:
        problem = "exports none of" if not found else "exports more than one of"
        known = ", ".join(f"{PACKAGE}/{name}" for name in INTERFACES)
        raise PolyglotLoadError(
            f"Module '{manifest.module_id}': {manifest.artifact} {problem} the module interfaces ({known}). "
            f"Export exactly one (see {WIT_FILE.name})", reason_code="invalid_module_metadata")
    kind, export = found[0]
    if manifest.module_type is not None and manifest.module_type != kind:
        raise PolyglotLoadError(
            f"Module '{manifest.module_id}' ({manifest.where}, key 'module.type'): the manifest says "
            f"'{manifest.module_type}' but {manifest.artifact.name if manifest.artifact else 'the component'} "
            f"exports the {kind} interface. Fix the type", reason_code="invalid_module_metadata")
    return kind, export


def imports_kernel_service(component: Any) -> bool:
    return any(name.split("@", 1)[0] == KERNEL_SERVICE.split("@", 1)[0]
               for name in component.type.imports(engine()))


@dataclass(frozen=True)
class Limits:
    memory_bytes: int
    cpu_ticks: int
    cpu_seconds: float


def limits_of(manifest: ModuleManifest) -> Limits:
    memory_mb = manifest.wasm_memory_mb or DEFAULT_MEMORY_MB
    cpu_seconds = manifest.wasm_cpu_seconds or DEFAULT_CPU_SECONDS
    return Limits(int(memory_mb * 1024 * 1024), max(1, round(cpu_seconds / TICK_SECONDS)), cpu_seconds)


HostFunction = Callable[..., Any]


class ComponentInstance:
    """One instantiated component: calls are serialised (a store is single-threaded) and each gets the CPU
    budget afresh; a host call (``refresh``) restarts the budget, so waiting on the session is not counted."""

    def __init__(self, manifest: ModuleManifest, component: Any, export: str,
                 host: dict[str, HostFunction] | None = None) -> None:
        wasmtime = wasmtime_api()
        self.manifest = manifest
        self.limits = limits_of(manifest)
        self._lock = threading.Lock()
        self._store = wasmtime.Store(engine())
        self._store.set_limits(memory_size=self.limits.memory_bytes)
        self._store.set_wasi(wasmtime.WasiConfig())  # no preopened directory, no env, no args, no network
        linker = wasmtime.component.Linker(engine())
        linker.add_wasip2()
        if host:
            with linker.root() as root, root.add_instance(KERNEL_SERVICE) as service:
                for name, function in host.items():
                    service.add_func(name, function)
        self._store.set_epoch_deadline(self.limits.cpu_ticks)
        try:
            self._instance = linker.instantiate(self._store, component)
        except Exception as error:
            raise PolyglotLoadError(f"Module '{manifest.module_id}': {manifest.artifact} cannot be instantiated "
                                    f"({str(error).splitlines()[0]})") from None
        self._export = self._instance.get_export_index(self._store, export)
        self._functions: dict[str, Any] = {}

    def refresh(self) -> None:
        """Restart the CPU budget (called as a host call returns)."""
        self._store.set_epoch_deadline(self.limits.cpu_ticks)

    def call_blocking(self, name: str, *args: Any) -> Any:
        with self._lock:
            function = self._functions.get(name)
            if function is None:
                index = self._instance.get_export_index(self._store, name, self._export)
                if index is None:
                    raise ComponentTrap(f"{self.manifest.artifact} does not export '{name}'")
                function = self._functions[name] = self._instance.get_func(self._store, index)
            self.refresh()
            try:
                result = function(self._store, *args)
            except Exception as error:
                raise ComponentTrap(self._trap_text(name, error)) from None
            return result

    async def call(self, name: str, *args: Any) -> Any:
        return await asyncio.to_thread(self.call_blocking, name, *args)

    def _trap_text(self, name: str, error: BaseException) -> str:
        text = str(error)
        module = f"WASM module '{self.manifest.module_id}'"
        if "interrupt" in text:
            return f"{module}: {name} ran past its CPU limit ({self.limits.cpu_seconds:g} s) and was stopped"
        first = text.strip().splitlines()[0] if text.strip() else type(error).__name__
        return f"{module}: {name} trapped ({first})"
