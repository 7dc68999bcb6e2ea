"""Modules that are not Python packages: gRPC services, native executables and WASM components.

``mount_function(manifest, wrap)`` turns a module's manifest (module_manifest.py) into the
``async mount(coordinator, config)`` the loader hands back for any module. grpc, protobuf and wasmtime are
imported only when such a module is mounted; without them one message names the extra to install.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..module_manifest import ModuleManifest
from .errors import EXTRA_HINT, PolyglotLoadError

__all__ = ["EXTRA_HINT", "PolyglotLoadError", "mount_function"]

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
