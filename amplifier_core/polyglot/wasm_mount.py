"""Mount a WASM component (``transport = "wasm"``, or a lone ``*.wasm``) as the module its exports say it is."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from ..models import ProviderInfo
from ..module_manifest import ModuleManifest
from .errors import PolyglotLoadError
from .wasm_bridges import WasmApproval, WasmContext, WasmHooks, WasmOrchestrator, WasmProvider, WasmTool, decode
from .wasm_runtime import ComponentInstance, ComponentTrap, compile_component, detect_world, imports_kernel_service


def with_detected_type(manifest: ModuleManifest) -> ModuleManifest:
    """The manifest with the type its component exports (a lone ``*.wasm`` says nothing else)."""
    kind, _ = detect_world(manifest, compile_component(manifest))
    return dataclasses.replace(manifest, module_type=kind)


async def mount_wasm(manifest: ModuleManifest, coordinator: Any,
                     config: dict[str, Any]) -> Callable[[], Awaitable[None]] | None:
    component = await asyncio.to_thread(compile_component, manifest)
    kind, export = detect_world(manifest, component)
    host = None
    holder: list[ComponentInstance] = []
    scope = None
    if imports_kernel_service(component):
        from .wasm_kernel_service import CallScope, kernel_service

        scope = CallScope(coordinator)
        host = kernel_service(scope, asyncio.get_running_loop(), lambda: holder[0].refresh())
    instance = ComponentInstance(manifest, component, export, host)
    holder.append(instance)
    undo: Callable[[], None] | None = None
    try:
        if kind == "tool":
            spec = decode(await instance.call("get-spec"), instance, "get-spec")
            tool = WasmTool(instance, spec if isinstance(spec, dict) else {})
            await coordinator.mount("tools", tool, name=tool.name)
        elif kind == "hook":
            undo = await WasmHooks(instance).register(coordinator, config)
        elif kind == "context":
            await coordinator.mount("context", WasmContext(instance))
        elif kind == "provider":
            info = ProviderInfo.model_validate(decode(await instance.call("get-info"), instance, "get-info"))
            provider = WasmProvider(instance, info)
            await coordinator.mount("providers", provider, name=provider.name)
        elif kind == "orchestrator":
            await coordinator.mount("orchestrator", WasmOrchestrator(instance, scope))
        else:
            previous = coordinator.approval_system
            coordinator.approval_system = WasmApproval(instance)

            def undo() -> None:
                coordinator.approval_system = previous
    except (ComponentTrap, ValueError) as error:
        raise PolyglotLoadError(f"Module '{manifest.module_id}': mounting {manifest.artifact} failed: {error}") \
            from None
    if undo is None:
        return None
    done = undo

    async def cleanup() -> None:
        done()

    return cleanup
