"""2.0.2's Python entry points for gRPC tool modules (``load_grpc_module``, ``GrpcToolBridge``), kept for code
that calls them directly. The loader itself mounts gRPC modules of every type through ``polyglot/grpc_mount``;
these names cover 2.0.2's tool-only path with its shapes (``execute(**kwargs)`` answering a plain dict)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

DEFAULT_ENDPOINT = "localhost:50051"  # what 2.0.2 assumes when amplifier.toml names none


class GrpcToolBridge:
    """A remote ToolService with 2.0.2's tool shape: ``get_spec()`` and ``await execute(**arguments)``."""

    def __init__(self, name: str, description: str, parameters_json: str, endpoint: str,
                 channel: Any | None = None) -> None:
        self._name = name
        self._description = description
        self._parameters_json = parameters_json
        self._endpoint = endpoint
        self._channel = channel
        self._stub: Any | None = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return self._description

    def get_spec(self) -> dict[str, Any]:
        parameters = json.loads(self._parameters_json) if self._parameters_json else {}
        return {"name": self._name, "description": self._description, "parameters": parameters}

    async def execute(self, **kwargs: Any) -> dict[str, Any]:
        """Call the service; any failure (including no connection) comes back as ``success: False``."""
        if self._stub is None:
            return {"success": False, "output": None,
                    "error": {"message": f"gRPC tool '{self._name}' is not connected (use load_grpc_module)"}}
        from .polyglot.grpc_mount import grpc_modules
        from .polyglot.proto_convert import tool_result_from_proto

        _, pb, _ = grpc_modules()
        request = pb.ToolExecuteRequest(input=json.dumps(kwargs, default=str).encode("utf-8"),
                                        content_type="application/json")
        try:
            result = tool_result_from_proto(await self._stub.Execute(request))
        except Exception as error:
            return {"success": False, "output": None, "error": {"message": str(error)}}
        answer: dict[str, Any] = {"success": result.success, "output": result.output, "error": result.error}
        if result.content is not None:
            answer["content"] = [block.model_dump(exclude_none=True) for block in result.content]
        return answer

    async def cleanup(self) -> None:
        if self._channel is not None:
            await self._channel.close()


async def load_grpc_module(module_id: str, config: dict[str, Any] | None, meta: dict[str, Any],
                           coordinator: Any) -> Callable[[Any], Awaitable[Any]]:
    """Connect to the ToolService named by ``meta`` (parsed amplifier.toml: ``[grpc] endpoint``), read its spec,
    and return ``async mount(coordinator)`` that mounts the bridge and returns its cleanup."""
    from .polyglot.grpc_mount import grpc_modules

    grpc_aio, pb, services = grpc_modules()
    section = meta.get("grpc") if isinstance(meta, dict) else None
    endpoint = str((section or {}).get("endpoint") or DEFAULT_ENDPOINT)
    channel = grpc_aio.insecure_channel(endpoint)
    stub = services.ToolServiceStub(channel)
    spec = await stub.GetSpec(pb.Empty())
    bridge = GrpcToolBridge(spec.name, spec.description, spec.parameters_json, endpoint, channel)
    bridge._stub = stub

    async def mount(target: Any) -> Callable[[], Awaitable[None]]:
        await target.mount("tools", bridge, name=bridge.name)
        return bridge.cleanup

    return mount
