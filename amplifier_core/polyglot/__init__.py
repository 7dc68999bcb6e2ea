"""Modules that are not Python packages: gRPC services, native executables and WASM components.

``mount_function(manifest, wrap)`` turns a module's manifest (module_manifest.py) into the
``async mount(coordinator, config)`` the loader hands back for any module. grpc, protobuf and wasmtime are
imported only when such a module is mounted; without them one message names the extra to install.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ..module_manifest import ModuleManifest, read_manifest
from .errors import EXTRA_HINT, PolyglotLoadError

__all__ = ["EXTRA_HINT", "PolyglotLoadError", "mount_function", "polyglot_package"]

MountFunction = Callable[[Any, dict[str, Any]], Awaitable[Any]]


def mount_function(manifest: ModuleManifest,
                   wrap: Callable[[list[str]], list[str]] | None = None) -> MountFunction:
    """The mount function of a non-Python module; its cleanup is what mount returns."""

    async def mount(coordinator: Any, config: dict[str, Any]) -> Any:
        if manifest.transport == "grpc":
            from .grpc_mount import mount_grpc

            return await mount_grpc(manifest, coordinator, dict(config or {}))
        if manifest.transport == "rust":
            from .native_sidecar import mount_native

            return await mount_native(manifest, coordinator, dict(config or {}), wrap)
        from .wasm_mount import mount_wasm

        return await mount_wasm(manifest, coordinator, dict(config or {}))

    mount.__name__ = f"mount_{manifest.transport}_{manifest.module_id.replace('-', '_')}"
    return mount


def polyglot_package(path: Any) -> Any | None:
    """A stand-in for the imported package of the non-Python module in directory ``path`` (what validation and
    the pytest plugin import): ``mount`` and ``__amplifier_module_type__``. None for a Python module; raises
    ManifestError for a manifest that cannot be used."""
    directory = Path(path)
    if not directory.is_dir() and directory.suffix != ".wasm":
        return None
    manifest = read_manifest(directory.stem if directory.suffix == ".wasm" else directory.name, directory)
    if manifest.transport == "python":
        return None
    if manifest.module_type is None and manifest.transport == "wasm":
        from .wasm_mount import with_detected_type

        manifest = with_detected_type(manifest)
    return SimpleNamespace(mount=mount_function(manifest), __amplifier_module_type__=manifest.module_type,
                           __name__=f"{manifest.transport} module {manifest.module_id}", __file__=str(manifest.where),
                           amplifier_manifest=manifest)
