"""WASM components as kernel modules, one bridge per world of wit/amplifier-modules.wit: tool, hook, context,
approval, provider and orchestrator. Payloads are JSON in the kernel models' shapes, as upstream's engine and guest
SDK exchange them; a trap, an error result or bytes that do not decode surface as a failed tool result, a raised
error or a hook error naming the module and the function, never as a crash of the session."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, Literal

from ..interfaces import ApprovalRequest, ApprovalResponse
from ..message_models import ChatRequest, ChatResponse, ToolCall
from ..models import HookResult, ModelInfo, ProviderInfo, ToolResult
from .tool_spec import DescribedTool
from .wasm_runtime import ComponentInstance, ComponentTrap

logger = logging.getLogger(__name__)


def encode(value: Any) -> bytes:
    return json.dumps(value, default=str).encode("utf-8")


def decode(raw: Any, component: ComponentInstance, function: str) -> Any:
    """The JSON value a ``list<u8>`` or ``result<list<u8>, string>`` call returned; the ``err`` case and bytes
    that are not UTF-8 JSON are one ComponentTrap naming the module and the function."""
    where = f"WASM module '{component.manifest.module_id}': {function}"
    if isinstance(raw, str):
        raise ComponentTrap(f"{where} failed: {raw}")
    try:
        return json.loads(bytes(raw or b"null").decode("utf-8"))
    except ValueError as error:
        raise ComponentTrap(f"{where} returned bytes that are not UTF-8 JSON ({error})") from None


def checked(raw: Any, component: ComponentInstance, function: str) -> None:
    """The result of a ``result<_, string>`` call: None, or the error text."""
    if isinstance(raw, str):
        raise ComponentTrap(f"WASM module '{component.manifest.module_id}': {function} failed: {raw}")


def validated(model: Any, value: Any, component: ComponentInstance, function: str) -> Any:
    """``model.model_validate(value)``; a value of the wrong shape is one ComponentTrap naming the module and the
    function."""
    try:
        return model.model_validate(value)
    except ValueError as error:
        raise ComponentTrap(f"WASM module '{component.manifest.module_id}': {function} returned an invalid "
                            f"{model.__name__} ({str(error).splitlines()[0]})") from None


class WasmTool(DescribedTool):
    def __init__(self, component: ComponentInstance, spec: dict[str, Any]) -> None:
        super().__init__(str(spec.get("name") or component.manifest.module_id), str(spec.get("description") or ""),
                         spec.get("parameters") or spec.get("input_schema") or {})
        self._component = component

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        try:
            value = decode(await self._component.call("execute", encode(input)), self._component, "execute")
            if isinstance(value, dict) and "success" in value:
                return validated(ToolResult, value, self._component, "execute")
        except ComponentTrap as error:
            return ToolResult(success=False, error={"message": str(error)})
        return ToolResult(success=True, output=value)


class WasmHooks:
    def __init__(self, component: ComponentInstance) -> None:
        self._component = component

    async def register(self, coordinator: Any, config: dict[str, Any]) -> Callable[[], None]:
        removers = []
        for event, priority, name in await self._subscriptions(config):
            removers.append(coordinator.hooks.register(event, self._handle, priority=priority,
                                                       name=name or self._component.manifest.module_id))

        def unregister() -> None:
            for remove in removers:
                remove()

        return unregister

    async def _subscriptions(self, config: dict[str, Any]) -> list[tuple[str, int, str]]:
        """Upstream's ``list<event-subscription>`` records; a ``list<u8>`` of JSON objects is read too (the shape
        of this project's first WIT)."""
        raw = await self._component.call("get-subscriptions", encode(config))
        as_bytes = isinstance(raw, (bytes, str)) or (isinstance(raw, list) and all(isinstance(b, int) for b in raw))
        items = decode(raw, self._component, "get-subscriptions") if as_bytes else raw
        found = []
        for item in items if isinstance(items, list) else []:
            fields = item if isinstance(item, dict) else getattr(item, "__dict__", {})
            if isinstance(fields.get("event"), str):
                found.append((fields["event"], int(fields.get("priority") or 0), str(fields.get("name") or "")))
        return found

    async def _handle(self, event: str, data: dict[str, Any]) -> HookResult:
        """The component's verdict; one that traps or does not decode is logged in one line and lets the event
        pass, as the hook registry does for any failing handler (and the gRPC bridge for a lost service)."""
        try:
            value = decode(await self._component.call("handle", encode({"event": event, "data": data})),
                           self._component, "handle")
            if not isinstance(value, dict):
                return HookResult()
            result: HookResult = validated(HookResult, guest_hook_result(value), self._component, "handle")
            return result
        except ComponentTrap as error:
            logger.warning("%s (event %s)", error, event)
            return HookResult()


def guest_hook_result(value: dict[str, Any]) -> dict[str, Any]:
    """A HookResult as upstream's guest SDK writes it, in the kernel's spelling: its enums are PascalCase
    ("System", "Allow", "Info") and ``append_to_last_tool_result`` may be any JSON value; a null is a default."""
    fixed = {key: item for key, item in value.items() if item is not None}
    for key in ("context_injection_role", "approval_default", "user_message_level"):
        if isinstance(fixed.get(key), str):
            fixed[key] = fixed[key].lower()
    if "append_to_last_tool_result" in fixed:
        fixed["append_to_last_tool_result"] = bool(fixed["append_to_last_tool_result"])
    return fixed


class WasmContext:
    def __init__(self, component: ComponentInstance) -> None:
        self._component = component

    async def add_message(self, message: dict[str, Any]) -> None:
        checked(await self._component.call("add-message", encode(message)), self._component, "add-message")

    async def get_messages(self) -> list[dict[str, Any]]:
        return list(decode(await self._component.call("get-messages"), self._component, "get-messages") or [])

    async def get_messages_for_request(self, token_budget: int | None = None,
                                       provider: Any | None = None) -> list[dict[str, Any]]:
        request = {"token_budget": token_budget, "provider_name": str(getattr(provider, "name", "") or "")}
        return list(decode(await self._component.call("get-messages-for-request", encode(request)),
                           self._component, "get-messages-for-request") or [])

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        checked(await self._component.call("set-messages", encode(messages)), self._component, "set-messages")

    async def clear(self) -> None:
        checked(await self._component.call("clear"), self._component, "clear")


class WasmApproval:
    """An approval-provider component answering the session's ``ask_user`` prompts (the coordinator's approval
    system while it is mounted)."""

    def __init__(self, component: ComponentInstance) -> None:
        self._component = component

    async def request(self, request: ApprovalRequest) -> ApprovalResponse:
        value = decode(await self._component.call("request-approval", encode(request.model_dump())),
                       self._component, "request-approval")
        return validated(ApprovalResponse, value, self._component, "request-approval")

    async def request_approval(self, prompt: str, options: list[str], timeout: float,
                               default: Literal["allow", "deny"]) -> str:
        response = await self.request(ApprovalRequest(tool_name="", action=prompt, details={"options": options},
                                                      risk_level="unknown", timeout=timeout))
        return "allow" if response.approved else "deny"


class WasmProvider:
    def __init__(self, component: ComponentInstance, info: ProviderInfo) -> None:
        self._component = component
        self._info = info

    @property
    def name(self) -> str:
        return self._info.id

    def get_info(self) -> ProviderInfo:
        return self._info

    async def list_models(self) -> list[ModelInfo]:
        models = decode(await self._component.call("list-models"), self._component, "list-models") or []
        return [validated(ModelInfo, model, self._component, "list-models") for model in models]

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        payload = request.model_dump(mode="json", exclude_none=True, by_alias=True)
        value = decode(await self._component.call("complete", encode(payload)), self._component, "complete")
        return validated(ChatResponse, value, self._component, "complete")

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        return list(response.tool_calls or [])


class WasmOrchestrator:
    """An orchestrator component: ``{"prompt"}`` goes in as JSON and the answer comes back as a JSON string
    (upstream's envelope); in between it reaches the session's modules through the kernel-service imports
    (wasm_kernel_service.py). An answer that is other JSON, or not JSON, is passed on as its text."""

    def __init__(self, component: ComponentInstance, scope: Any = None) -> None:
        self._component = component
        self._scope = scope  # wasm_kernel_service.CallScope, when the component imports the kernel service

    async def execute(self, prompt: str, context: Any = None, providers: Any = None, tools: Any = None,
                      hooks: Any = None, **kwargs: Any) -> str:
        if self._scope is not None:
            self._scope.given = {"context": context, "providers": providers, "tools": tools, "hooks": hooks}
        try:
            raw = await self._component.call("execute", json.dumps({"prompt": prompt}, separators=(",", ":"))
                                             .encode("utf-8"))
        finally:
            if self._scope is not None:
                self._scope.given = {}
        if isinstance(raw, str):
            raise ComponentTrap(f"WASM module '{self._component.manifest.module_id}': execute failed: {raw}")
        text = bytes(raw).decode("utf-8", errors="replace")
        try:
            answer = json.loads(text)
        except ValueError:
            return text
        return answer if isinstance(answer, str) else text
