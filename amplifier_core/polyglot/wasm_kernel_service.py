"""The ``kernel-service`` imports of a WASM orchestrator: each call reaches the session's coordinator, so the
component sees every mounted module (Python ones included; 2.0.2's WASM orchestrator does not see Python tools).

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

    def parsed(raw: bytes, what: str) -> Any:
        try:
            return json.loads(bytes(raw).decode("utf-8"))
        except ValueError as error:
            raise ValueError(f"{what}: the request is not JSON ({error})") from None

    def execute_tool(_store: Any, raw: bytes) -> Any:
        async def work() -> bytes:
            request = parsed(raw, "execute-tool")
            name = request.get("name") if isinstance(request, dict) else None
            tools = scope.modules("tools")
            if name not in tools:
                raise LookupError(f"no tool named {name!r} (mounted: {', '.join(sorted(tools)) or 'none'})")
            return _dump(await tools[name].execute(request.get("input") or {}))

        return run(work, "execute-tool")

    def complete_with_provider(_store: Any, raw: bytes) -> Any:
        async def work() -> bytes:
            request = parsed(raw, "complete-with-provider")
            providers = scope.modules("providers")
            name = request.get("name") or next(iter(providers), None)
            if name not in providers:
                raise LookupError(f"no provider named {name!r} (mounted: {', '.join(sorted(providers)) or 'none'})")
            chat = ChatRequest.model_validate(request.get("request") or {})
            return _dump(await providers[name].complete(chat))

        return run(work, "complete-with-provider")

    def emit_hook(_store: Any, raw: bytes) -> Any:
        async def work() -> bytes:
            request = parsed(raw, "emit-hook")
            return _dump(await scope.hooks().emit(str(request.get("event")), request.get("data") or {}))

        return run(work, "emit-hook")

    def get_messages(_store: Any) -> Any:
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
            await context.add_message(parsed(raw, "add-message"))

        return run(work, "add-message")

    def get_capability(_store: Any, name: str) -> Any:
        async def work() -> bytes:
            return _dump(coordinator.get_capability(name))

        return run(work, "get-capability")

    def register_capability(_store: Any, name: str, raw: bytes) -> Any:
        async def work() -> None:
            coordinator.register_capability(name, parsed(raw, "register-capability"))

        return run(work, "register-capability")

    return {"execute-tool": execute_tool, "complete-with-provider": complete_with_provider, "emit-hook": emit_hook,
            "get-messages": get_messages, "add-message": add_message, "get-capability": get_capability,
            "register-capability": register_capability}
