"""WASM components (``transport = "wasm"``): not mounted yet."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..module_manifest import ModuleManifest
from .errors import PolyglotLoadError


async def mount_wasm(manifest: ModuleManifest, coordinator: Any,
                     config: dict[str, Any]) -> Callable[[], Awaitable[None]]:
    raise PolyglotLoadError(f"Module '{manifest.module_id}': WASM modules cannot be mounted yet")


def with_detected_type(manifest: ModuleManifest) -> ModuleManifest:
    return manifest
