"""The ``kernel-service`` imports of a WASM orchestrator: each call reaches the session's coordinator, so the
component sees every mounted module (Python ones included; 2.0.2's WASM orchestrator does not see Python tools).

Requests and answers are JSON with upstream's shapes and signatures (every function takes one ``list<u8>``);
``get-messages`` without an argument and ``get-capability(name: string)`` / ``register-capability(name, value)``,
the signatures of this project's first WIT, are still served: the linker hands over what the import declares.

The component runs on a worker thread; each import hands its coroutine to the session's event loop and waits.
Errors come back as the ``err`` case of the import's result, never as a trap."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from ..message_models import ChatRequest

HOST_CALL_TIMEOUT = 600.0


class CallScope:
    """What the running ``execute`` was handed (providers, tools, context, hooks): the kernel service answers
    from these first, as a Python orchestrator would use its arguments, and from the coordinator otherwise."""

    def __init__(self, coordinator: Any) -> None:
        self.coordinator = coordinator
        self.given: dict[str, Any] = {}

    def modules(self, point: str) -> dict[str, Any]:
        found = self.given.get(point)
        if not isinstance(found, dict):
            found = self.coordinator.get(point)
        return found if isinstance(found, dict) else {}

    def context(self) -> Any:
        return self.given.get("context") or self.coordinator.get("context")

    def hooks(self) -> Any:
        return self.given.get("hooks") or self.coordinator.hooks


def _dump(value: Any) -> bytes:
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", exclude_none=True)
    return json.dumps(value, default=str).encode("utf-8")


def _named(request: Any) -> str:
    name = request.get("name") if isinstance(request, dict) else None
    if not isinstance(name, str) or not name:
        raise ValueError("the request has no 'name'")
    return name


def kernel_service(scope: CallScope, loop: asyncio.AbstractEventLoop,
                   on_return: Callable[[], None]) -> dict[str, Callable[..., Any]]:
    """The import functions by WIT name; ``on_return`` runs as each returns (it restarts the CPU budget)."""
    coordinator = scope.coordinator

    def run(work: Callable[[], Awaitable[Any]], what: str) -> Any:
        try:
            return asyncio.run_coroutine_threadsafe(work(), loop).result(HOST_CALL_TIMEOUT)  # type: ignore[arg-type]
        except Exception as error:
            return f"{what}: {error}"
        finally:
            on_return()

    def parsed(raw: bytes) -> Any:
        try:
            return json.loads(bytes(raw).decode("utf-8"))
        except ValueError as error:
            raise ValueError(f"the request is not JSON ({error})") from None

    def execute_tool(_store: Any, raw: bytes) -> Any:
        async def work() -> bytes:
            request = parsed(raw)
            name = request.get("name") if isinstance(request, dict) else None
            tools = scope.modules("tools")
            if name not in tools:
                raise LookupError(f"no tool named {name!r} (mounted: {', '.join(sorted(tools)) or 'none'})")
            return _dump(await tools[name].execute(request.get("input") or {}))

        return run(work, "execute-tool")

    def complete_with_provider(_store: Any, raw: bytes) -> Any:
        async def work() -> bytes:
            request = parsed(raw)
            providers = scope.modules("providers")
            name = request.get("name") or next(iter(providers), None)
            if name not in providers:
                raise LookupError(f"no provider named {name!r} (mounted: {', '.join(sorted(providers)) or 'none'})")
            chat = ChatRequest.model_validate(request.get("request") or {})
            return _dump(await providers[name].complete(chat))

        return run(work, "complete-with-provider")

    def emit_hook(_store: Any, raw: bytes) -> Any:
        async def work() -> bytes:
            request = parsed(raw)
            return _dump(await scope.hooks().emit(str(request.get("event")), request.get("data") or {}))

        return run(work, "emit-hook")

    def get_messages(_store: Any, *_request: bytes) -> Any:
        async def work() -> bytes:
            context = scope.context()
            if context is None:
                raise LookupError("no context manager is mounted")
            return _dump(await context.get_messages())

        return run(work, "get-messages")

    def add_message(_store: Any, raw: bytes) -> Any:
        async def work() -> None:
            context = scope.context()
            if context is None:
                raise LookupError("no context manager is mounted")
            await context.add_message(parsed(raw))

        return run(work, "add-message")

    def get_capability(_store: Any, request: str | bytes) -> Any:
        async def work() -> bytes:
            if isinstance(request, str):  # get-capability(name: string): null when not registered
                return _dump(coordinator.get_capability(request))
            name = _named(parsed(request))
            value = coordinator.get_capability(name)
            if value is None:
                raise LookupError(f"no capability named {name!r} is registered")
            return _dump(value)

        return run(work, "get-capability")

    def register_capability(_store: Any, request: str | bytes, *value: bytes) -> Any:
        async def work() -> None:
            if isinstance(request, str):  # register-capability(name: string, value: list<u8>)
                coordinator.register_capability(request, parsed(value[0]))
                return
            body = parsed(request)
            coordinator.register_capability(_named(body), body.get("value"))

        return run(work, "register-capability")

    return {"execute-tool": execute_tool, "complete-with-provider": complete_with_provider, "emit-hook": emit_hook,
            "get-messages": get_messages, "add-message": add_message, "get-capability": get_capability,
            "register-capability": register_capability}
