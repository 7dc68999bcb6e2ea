"""Connect to a module's gRPC service and mount the bridge its type calls for.

grpc and the generated stubs are imported here, on first use, never at kernel import: a session with only Python
modules (and ``amplifier --help``) does not pay for them."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

from ..module_manifest import ModuleManifest
from .errors import PolyglotLoadError, missing_extra
from .grpc_bridges import GrpcContext, GrpcHooks, GrpcProvider, GrpcTool, _rpc_text
from .proto_convert import provider_info_from_proto

logger = logging.getLogger(__name__)

GRPC_TYPES = ("tool", "provider", "hook", "context")
CONNECT_TIMEOUT = 5.0


def grpc_modules() -> tuple[Any, Any, Any]:
    """(grpc.aio, the message module, the service stubs module), or PolyglotLoadError naming the extra."""
    # grpc's C core logs connection chatter (GOAWAY, reconnects) straight to stderr, over the session's output;
    # errors still show. A user who wants more sets GRPC_VERBOSITY themselves.
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    try:
        import grpc.aio as grpc_aio

        from .._grpc_gen import amplifier_module_pb2 as pb
        from .._grpc_gen import amplifier_module_pb2_grpc as services
    except ImportError as error:
        raise missing_extra("gRPC", error) from None
    return grpc_aio, pb, services


def _host_port(endpoint: str) -> tuple[str, int] | None:
    """(host, port) of a TCP endpoint; None for other schemes (unix:...), which are not probed."""
    text = endpoint.removeprefix("dns:///").removeprefix("ipv4:").removeprefix("ipv6:")
    if text.startswith("unix"):
        return None
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit():
        return None
    return host, int(port)


async def _probe(manifest: ModuleManifest, endpoint: str, key: str) -> None:
    """Fail fast and clearly when nothing listens at the endpoint (grpc itself would retry quietly)."""
    address = _host_port(endpoint)
    if address is None:
        return
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(*address), CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as error:
        reason = "timed out" if isinstance(error, TimeoutError) else (error.strerror or str(error))
        raise unreachable(manifest, endpoint, key, reason) from None
    writer.close()


def unreachable(manifest: ModuleManifest, endpoint: str, key: str, reason: str) -> PolyglotLoadError:
    return PolyglotLoadError(
        f"Module '{manifest.module_id}': cannot reach its gRPC service at {endpoint} ({reason}; "
        f"{manifest.where}, key '{key}'). Start the module's service, or fix the endpoint")


async def mount_grpc(manifest: ModuleManifest, coordinator: Any, config: dict[str, Any], *,
                     endpoint: str | None = None, key: str = "grpc.endpoint") -> Callable[[], Awaitable[None]]:
    """Mount the service at ``endpoint`` (default: the manifest's) as a module of the manifest's type; return
    the cleanup that closes the channel and unmounts what was registered."""
    grpc_aio, pb, services = grpc_modules()
    address = endpoint or manifest.endpoint or ""
    kind = manifest.module_type
    if kind not in GRPC_TYPES:
        raise PolyglotLoadError(
            f"Module '{manifest.module_id}' ({manifest.where}, key 'module.type'): a gRPC module of type '{kind}' "
            f"cannot be mounted here; gRPC modules may be: {', '.join(GRPC_TYPES)}")
    await _probe(manifest, address, key)
    channel = grpc_aio.insecure_channel(address)
    unregister: Callable[[], None] | None = None
    try:
        if kind == "tool":
            stub = services.ToolServiceStub(channel)
            tool = GrpcTool(stub, pb, await stub.GetSpec(pb.Empty(), timeout=CONNECT_TIMEOUT))
            await coordinator.mount("tools", tool, name=tool.name)
        elif kind == "provider":
            stub = services.ProviderServiceStub(channel)
            info = provider_info_from_proto(await stub.GetInfo(pb.Empty(), timeout=CONNECT_TIMEOUT),
                                            manifest.module_id.removeprefix("provider-"))
            provider = GrpcProvider(stub, pb, info, coordinator, config)
            await coordinator.mount("providers", provider, name=provider.name)
        elif kind == "hook":
            unregister = await GrpcHooks(services.HookServiceStub(channel), pb, manifest.module_id).register(
                coordinator, config)
        else:
            await coordinator.mount("context", GrpcContext(services.ContextServiceStub(channel), pb))
    except PolyglotLoadError:
        await channel.close()
        raise
    except Exception as error:
        await channel.close()
        if type(error).__module__.startswith("grpc"):
            raise PolyglotLoadError(
                f"Module '{manifest.module_id}': its gRPC service at {address} did not answer as a {kind} module "
                f"({_rpc_text(error)}). Check that it serves amplifier.module's {kind} service") from None
        raise
    logger.info("mounted gRPC %s module %s from %s", kind, manifest.module_id, address)

    async def cleanup() -> None:
        if unregister is not None:
            unregister()
        await channel.close()

    return cleanup
