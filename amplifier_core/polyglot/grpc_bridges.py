"""A module's gRPC services, each wrapped as the kernel protocol it serves: a tool, a provider (streaming too),
hook handlers and a context manager. From the coordinator's side they are ordinary modules.

2.0.2's Python side bridges tools only; these bridges let a provider, a hook or a context manager be written in
any language that speaks the module proto."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from .. import llm_errors
from ..message_models import ChatRequest, ChatResponse, ToolCall
from ..models import HookResult, ModelInfo, ProviderInfo, ToolResult
from . import proto_convert as convert
from .tool_spec import DescribedTool

logger = logging.getLogger(__name__)


class GrpcTool(DescribedTool):
    """A ToolService as a kernel tool (the spec is read once, at mount)."""

    def __init__(self, stub: Any, pb: Any, spec: Any) -> None:
        super().__init__(spec.name, spec.description, convert._loads(spec.parameters_json, {}))
        self._stub = stub
        self._pb = pb

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        request = self._pb.ToolExecuteRequest(input=json.dumps(input, default=str).encode("utf-8"),
                                              content_type="application/json")
        try:
            response = await self._stub.Execute(request)
        except Exception as error:  # the service went away mid-session: the model sees a failed call
            return ToolResult(success=False, error={"message": f"gRPC tool '{self._name}' failed: {_rpc_text(error)}"})
        try:
            return convert.tool_result_from_proto(response)
        except (ValueError, TypeError) as error:
            return ToolResult(success=False, error={"message": f"gRPC tool '{self._name}' returned an invalid "
                                                               f"result: {error}"})


class GrpcProvider:
    """A ProviderService as a kernel provider. ``complete`` streams (CompleteStreaming) when the request asks,
    emitting the streaming events of docs/STREAMING.md as the deltas arrive."""

    def __init__(self, stub: Any, pb: Any, info: ProviderInfo, coordinator: Any, config: dict[str, Any]) -> None:
        self._stub = stub
        self._pb = pb
        self._info = info
        self._coordinator = coordinator
        self._default_model = config.get("default_model") or config.get("model")

    @property
    def name(self) -> str:
        return self._info.id

    def get_info(self) -> ProviderInfo:
        return self._info

    async def list_models(self) -> list[ModelInfo]:
        response = await self._stub.ListModels(self._pb.Empty())
        return [convert.model_info_from_proto(model) for model in response.models]

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        return list(response.tool_calls or [])

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        if request.model is None and self._default_model:
            request = request.model_copy(update={"model": self._default_model})
        message = convert.chat_request_to_proto(self._pb, request)
        try:
            if not request.stream:
                return convert.chat_response_from_proto(await self._stub.Complete(message))
            return await self._complete_streaming(message)
        except Exception as error:
            raise provider_error(error, self.name, request.model) from error

    async def _complete_streaming(self, message: Any) -> ChatResponse:
        """Join the stream's messages into one response: ``content`` pieces are text deltas; tool calls, usage,
        finish reason and content blocks are taken from whichever message carries them (usually the last).
        A stream that breaks after text arrived emits ``llm:stream_aborted`` and raises StreamError."""
        pieces: list[str] = []
        last = self._pb.ChatResponse()
        try:
            async for chunk in self._stub.CompleteStreaming(message):
                await self._take_chunk(chunk, pieces, last)
        except Exception as error:
            if not pieces:
                raise
            await self._emit("llm:stream_aborted", {"error": _rpc_text(error)})
            raise llm_errors.StreamError(f"gRPC provider '{self.name}': the stream broke: {_rpc_text(error)}",
                                         provider=self.name) from error
        text = "".join(pieces)
        if text and not any(block.WhichOneof("block") == "text_block" for block in last.content_blocks):
            last.content_blocks.insert(0, self._pb.ContentBlock(text_block=self._pb.TextBlock(text=text)))
        response = convert.chat_response_from_proto(last)
        if pieces:
            await self._emit("content_block:end", {"block_index": 0, "block_type": "text",
                                                   "block": {"type": "text", "text": text}})
        return response.model_copy(update={"metadata": {**(response.metadata or {}), "streamed": bool(pieces)}})

    async def _take_chunk(self, chunk: Any, pieces: list[str], last: Any) -> None:
        if chunk.content:
            if not pieces:
                await self._emit("content_block:start", {"block_index": 0, "block_type": "text"})
            pieces.append(chunk.content)
            await self._emit("content_block:delta", {"block_index": 0, "block_type": "text", "delta": chunk.content})
        if chunk.tool_calls:
            del last.tool_calls[:]
            last.tool_calls.extend(chunk.tool_calls)
        if chunk.content_blocks:
            del last.content_blocks[:]
            last.content_blocks.extend(chunk.content_blocks)
        for field in ("usage", "degradation"):
            if chunk.HasField(field):
                getattr(last, field).CopyFrom(getattr(chunk, field))
        if chunk.finish_reason:
            last.finish_reason = chunk.finish_reason
        if chunk.metadata_json:
            last.metadata_json = chunk.metadata_json

    async def _emit(self, event: str, data: dict[str, Any]) -> None:
        hooks = getattr(self._coordinator, "hooks", None)
        if hooks is not None:
            await hooks.emit(event, {"provider": self.name, **data})


class GrpcHooks:
    """A HookService's subscriptions registered on the coordinator's hook registry, each calling Handle."""

    def __init__(self, stub: Any, pb: Any, module_id: str) -> None:
        self._stub = stub
        self._pb = pb
        self._module_id = module_id

    async def register(self, coordinator: Any, config: dict[str, Any]) -> Callable[[], None]:
        response = await self._stub.GetSubscriptions(self._pb.GetSubscriptionsRequest(
            config_json=json.dumps(config, default=str)))
        removers = [coordinator.hooks.register(subscription.event, self._handler(subscription.event),
                                               priority=subscription.priority,
                                               name=subscription.name or self._module_id)
                    for subscription in response.subscriptions]

        def unregister() -> None:
            for remove in removers:
                remove()

        return unregister

    def _handler(self, subscribed: str) -> Callable[[str, dict[str, Any]], Any]:
        async def handle(event: str, data: dict[str, Any]) -> HookResult:
            try:
                result = await self._stub.Handle(self._pb.HookHandleRequest(
                    event=event, data_json=json.dumps(data, default=str)))
            except Exception as error:  # the service went away: say so in one line, and let the event pass
                if not callable(getattr(error, "code", None)):
                    raise
                logger.warning("gRPC hook %s failed on %s: %s", self._module_id, event, _rpc_text(error))
                return HookResult()
            return convert.hook_result_from_proto(result, event)

        handle.__name__ = f"{self._module_id}:{subscribed}"
        return handle


class GrpcContext:
    """A ContextService as the session's context manager."""

    def __init__(self, stub: Any, pb: Any) -> None:
        self._stub = stub
        self._pb = pb

    async def add_message(self, message: dict[str, Any]) -> None:
        await self._stub.AddMessage(self._pb.AddMessageRequest(message=convert.message_to_proto(self._pb, message)))

    async def get_messages(self) -> list[dict[str, Any]]:
        response = await self._stub.GetMessages(self._pb.Empty())
        return [convert.message_from_proto(message) for message in response.messages]

    async def get_messages_for_request(self, token_budget: int | None = None,
                                       provider: Any | None = None) -> list[dict[str, Any]]:
        params = self._pb.GetMessagesForRequestParams(token_budget=token_budget or 0,
                                                      provider_name=str(getattr(provider, "name", "") or ""))
        response = await self._stub.GetMessagesForRequest(params)
        return [convert.message_from_proto(message) for message in response.messages]

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        await self._stub.SetMessages(self._pb.SetMessagesRequest(
            messages=[convert.message_to_proto(self._pb, message) for message in messages]))

    async def clear(self) -> None:
        await self._stub.Clear(self._pb.Empty())


_STATUS_ERRORS = {
    "UNAVAILABLE": (llm_errors.NetworkError, True),
    "DEADLINE_EXCEEDED": (llm_errors.LLMTimeoutError, True),
    "RESOURCE_EXHAUSTED": (llm_errors.RateLimitError, True),
    "UNAUTHENTICATED": (llm_errors.AuthenticationError, False),
    "PERMISSION_DENIED": (llm_errors.AccessDeniedError, False),
    "INVALID_ARGUMENT": (llm_errors.InvalidRequestError, False),
    "NOT_FOUND": (llm_errors.NotFoundError, False),
}


def provider_error(error: BaseException, provider: str, model: str | None) -> BaseException:
    """A failed provider RPC as the kernel's LLM error of its status, so the loop retries and reports it as it
    does any provider's; anything that is not an RPC error is returned unchanged."""
    code = getattr(error, "code", None)
    if isinstance(error, llm_errors.LLMError) or not callable(code):
        return error
    status = getattr(code(), "name", "UNKNOWN")
    kind, retryable = _STATUS_ERRORS.get(status, (llm_errors.ProviderUnavailableError, False))
    return kind(f"gRPC provider '{provider}': {status}: {_rpc_text(error)}", provider=provider, model=model,
                retryable=retryable)


def _rpc_text(error: BaseException) -> str:
    details = getattr(error, "details", None)
    if callable(details):
        try:
            text = details()
        except Exception:  # a details() that itself fails: fall back to the exception's text
            text = None
        if text:
            return str(text)
    return str(error) or type(error).__name__
