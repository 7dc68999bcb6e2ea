"""OpenAIProvider: the kernel Provider protocol over the official ``openai`` SDK (async client), speaking the
Responses API (default) or Chat Completions (``api: chat``, for OpenAI-compatible servers).

The SDK is imported when the first client is built (first request or list_models), never at package import.
The SDK's own retries are off (``max_retries=0``): every retry goes through the kernel's
``retry_with_backoff`` and is announced with ``provider:retry``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from amplifier_core import events
from amplifier_core.llm_errors import LLMError, StreamError
from amplifier_core.message_models import ChatRequest, ChatResponse, Message, ToolCall
from amplifier_core.models import ConfigField, ModelInfo, ProviderInfo
from amplifier_core.utils.retry import RetryConfig
from amplifier_support.provider_support import (
    CostTracker,
    LazyClient,
    RepairAnnouncer,
    callable_tool_calls,
    complete_with_retries,
    emit_via,
    retry_config_from,
    sdk_http_client,
    utf8_safe,
)

from .chat_convert import (
    chat_response_from_completion,
    messages_to_chat,
    response_format_to_chat,
    tool_choice_to_chat,
    tools_to_chat,
)
from .chat_stream import ChatStreamAccumulator
from .config import API_KEY_ENV, BASE_URL_ENV, OpenAIConfig
from .errors import ErrorContext, translate_error
from .pricing import DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_OUTPUT, KNOWN_MODELS, cost_usd, find_model, is_reasoning_model
from .responses_convert import (
    chat_response_from_responses,
    messages_to_responses,
    response_format_to_responses,
    tool_choice_to_responses,
    tools_to_responses,
)
from .responses_stream import ResponsesStreamAccumulator
from .tool_pairs import repair_tool_pairs

logger = logging.getLogger(__name__)

PROVIDER_NAME = "openai"
_CHAT_MODEL_PREFIXES = ("gpt-", "o1", "o3", "o4", "chatgpt-")


class OpenAIProvider:
    api_label = "OpenAI"

    def __init__(self, config: OpenAIConfig, *, api_key: str, base_url: str | None = None,
                 coordinator: Any = None) -> None:
        self.config = config
        self.priority = config.priority
        self.base_url = base_url
        self._api_key = api_key
        self._coordinator = coordinator
        self._client = LazyClient(self._new_client)
        self._repairs = RepairAnnouncer(self._emit, provider=PROVIDER_NAME)
        self._costs = CostTracker()
        # How a retry waits out its backoff; tests put a recorder here instead of waiting.
        self.retry_sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep

    @property
    def name(self) -> str:
        return PROVIDER_NAME

    # -- client ------------------------------------------------------------------------------------
    def client(self) -> Any:
        """The SDK client, created (and the SDK imported) on first use."""
        return self._client.get()

    def _new_client(self) -> Any:
        import openai

        return openai.AsyncOpenAI(api_key=self._api_key, base_url=self.base_url,
                                  timeout=self.config.timeout, max_retries=0,
                                  http_client=sdk_http_client(openai.DefaultAsyncHttpxClient))

    async def close(self) -> None:
        await self._client.close()

    # -- description ---------------------------------------------------------------------------------
    def get_info(self) -> ProviderInfo:
        spec = find_model(self.config.default_model)
        return ProviderInfo(
            id=PROVIDER_NAME,
            display_name="OpenAI",
            credential_env_vars=[API_KEY_ENV],
            capabilities=["tools", "streaming", "vision", "reasoning"],
            defaults={
                "model": self.config.default_model,
                "api": self.config.api,
                "max_tokens": self.config.max_tokens,
                "temperature": self.config.temperature,
                "timeout": self.config.timeout,
                "context_window": spec.context_window if spec else DEFAULT_CONTEXT_WINDOW,
                "max_output_tokens": spec.max_output_tokens if spec else DEFAULT_MAX_OUTPUT,
            },
            config_fields=[
                ConfigField(id="api_key", display_name="API key", prompt="OpenAI API key", field_type="secret",
                            env_var=API_KEY_ENV),
                ConfigField(id="base_url", display_name="Base URL",
                            prompt="Base URL of an OpenAI-compatible server (blank for OpenAI)",
                            env_var=BASE_URL_ENV, required=False),
                ConfigField(id="api", display_name="API", prompt="Which API to speak", field_type="choice",
                            choices=["responses", "chat"], default="responses", required=False),
                ConfigField(id="default_model", display_name="Model", prompt="Model", required=False,
                            default=self.config.default_model, requires_model=True),
            ],
        )

    async def list_models(self) -> list[ModelInfo]:
        """Models from GET /v1/models when reachable (chat models only on OpenAI itself), else the catalog."""
        try:
            found: list[ModelInfo] = []
            async for item in self.client().models.list():
                if self.base_url is None and not item.id.startswith(_CHAT_MODEL_PREFIXES):
                    continue
                found.append(_model_info(item.id))
            if found:
                return sorted(found, key=lambda info: info.id)
        except Exception as error:  # any failure: the static catalog is still a useful answer
            logger.debug("openai: listing models failed (%s); using the built-in list", error)
        return [_model_info(spec.id) for spec in KNOWN_MODELS]

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        return callable_tool_calls(response)

    def session_cost(self) -> dict[str, str] | None:
        """``session.cost`` contribution: the running cost, or None while any response was unpriced."""
        return self._costs.session_cost()

    # -- completion ----------------------------------------------------------------------------------
    async def _emit(self, event: str, data: dict[str, Any]) -> None:
        await emit_via(self._coordinator, event, data)

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        messages = [m if isinstance(m, Message) else Message.model_validate(m) for m in request.messages]
        model = kwargs.get("model") or request.model or self.config.default_model
        repaired = repair_tool_pairs(messages)
        await self._repairs.announce(repaired.repairs)
        if self.config.api == "chat":
            params = self._chat_params(request, repaired.messages, model)
        else:
            params = self._responses_params(request, repaired.messages, model)
        params = utf8_safe(params)
        stream = bool(request.stream) and self.config.stream
        context = ErrorContext(provider=self.name, model=model, base_url=self.base_url, api=self.config.api)
        await self._emit(events.LLM_REQUEST, {
            "provider": self.name, "model": model, "message_count": len(repaired.messages), "stream": stream,
            "api": self.config.api,
        })
        self.client()  # import the SDK and build the client outside the timed window

        async def attempt() -> ChatResponse:
            response = await self._call_once(params, context, stream)
            if response.usage is not None:
                response.usage.cost_usd = cost_usd(model, response.usage)
            return response

        return await complete_with_retries(attempt, emit=self._emit, provider=self.name, model=model,
                                           retry=self._retry_config(), costs=self._costs, sleep=self.retry_sleep)

    def _retry_config(self) -> RetryConfig:
        return retry_config_from(self.config)

    def _reasoning(self, request: ChatRequest, model: str) -> dict[str, Any] | None:
        effort = request.reasoning_effort or self.config.reasoning_effort
        if effort is None and not is_reasoning_model(model):
            return None
        reasoning: dict[str, Any] = {}
        if effort is not None:
            reasoning["effort"] = effort
        if self.config.reasoning_summary is not None:
            reasoning["summary"] = self.config.reasoning_summary
        return reasoning

    def _common_sampling(self, request: ChatRequest) -> dict[str, Any]:
        params: dict[str, Any] = {}
        temperature = request.temperature if request.temperature is not None else self.config.temperature
        if temperature is not None:
            params["temperature"] = temperature
        if request.top_p is not None:
            params["top_p"] = request.top_p
        if request.timeout is not None:
            params["timeout"] = request.timeout
        return params

    def _responses_params(self, request: ChatRequest, messages: list[Message], model: str) -> dict[str, Any]:
        converted = messages_to_responses(messages)
        params: dict[str, Any] = {"model": model, "input": converted.items, "store": False,
                                  **self._common_sampling(request)}
        if converted.instructions:
            params["instructions"] = converted.instructions
        tools = tools_to_responses(request.tools)
        if tools:
            params["tools"] = tools
            params["parallel_tool_calls"] = self.config.parallel_tool_calls
            choice = tool_choice_to_responses(request.tool_choice)
            if choice is not None:
                params["tool_choice"] = choice
        max_tokens = request.max_output_tokens or self.config.max_tokens
        if max_tokens is not None:
            params["max_output_tokens"] = max_tokens
        reasoning = self._reasoning(request, model)
        if reasoning is not None:
            params["reasoning"] = reasoning
        if reasoning is not None or converted.carries_reasoning:
            params["include"] = ["reasoning.encrypted_content"]
        text_format = response_format_to_responses(request.response_format)
        if text_format is not None:
            params["text"] = {"format": text_format}
        return params

    def _chat_params(self, request: ChatRequest, messages: list[Message], model: str) -> dict[str, Any]:
        params: dict[str, Any] = {"model": model, "messages": messages_to_chat(messages),
                                  **self._common_sampling(request)}
        tools = tools_to_chat(request.tools)
        if tools:
            params["tools"] = tools
            params["parallel_tool_calls"] = self.config.parallel_tool_calls
            choice = tool_choice_to_chat(request.tool_choice)
            if choice is not None:
                params["tool_choice"] = choice
        max_tokens = request.max_output_tokens or self.config.max_tokens
        if max_tokens is not None:
            # OpenAI deprecated max_tokens (reasoning models reject it); compatible servers may know only it.
            params["max_tokens" if self.base_url else "max_completion_tokens"] = max_tokens
        response_format = response_format_to_chat(request.response_format)
        if response_format is not None:
            params["response_format"] = response_format
        effort = request.reasoning_effort or self.config.reasoning_effort
        if effort is not None:
            params["reasoning_effort"] = effort
        if request.stop:
            params["stop"] = list(request.stop)
        return params

    async def _call_once(self, params: dict[str, Any], context: ErrorContext, stream: bool) -> ChatResponse:
        client = self.client()
        chat = self.config.api == "chat"
        endpoint = client.chat.completions if chat else client.responses
        began = False
        accumulator: ChatStreamAccumulator | ResponsesStreamAccumulator | None = None
        try:
            if not stream:
                result = await endpoint.create(**params)
                data = result.to_dict()
                if chat:
                    return chat_response_from_completion(data, streamed=False)
                return chat_response_from_responses(data, streamed=False)
            extra = {"stream_options": {"include_usage": True}} if chat else {}
            wire_stream = await endpoint.create(**params, **extra, stream=True)
            began = True
            accumulator = ChatStreamAccumulator(self._emit, context) if chat else ResponsesStreamAccumulator(
                self._emit, context)
            async with wire_stream:
                async for event in wire_stream:
                    await accumulator.feed(event.to_dict())
            return accumulator.chat_response()
        except Exception as error:
            if isinstance(accumulator, ResponsesStreamAccumulator) and accumulator.final is not None \
                    and not isinstance(error, LLMError):
                # response.completed had arrived; only the end of the HTTP body was lost. Keeping the
                # response avoids a retry that would bill and display the answer twice.
                try:
                    return accumulator.chat_response()
                except StreamError:
                    pass
            mapped = error if isinstance(error, StreamError) else translate_error(
                error, context, streaming_began=began)
            if mapped is None:
                raise
            if began:
                await self._emit("llm:stream_aborted", {"provider": self.name, "model": context.model,
                                                        "error": str(mapped)})
            if mapped is error:
                raise
            raise mapped from error


def _model_info(model_id: str) -> ModelInfo:
    spec = find_model(model_id)
    capabilities = ["tools", "streaming"] + (["reasoning"] if is_reasoning_model(model_id) else [])
    return ModelInfo(
        id=model_id,
        display_name=spec.display_name if spec and spec.id == model_id else model_id,
        context_window=spec.context_window if spec else DEFAULT_CONTEXT_WINDOW,
        max_output_tokens=spec.max_output_tokens if spec else DEFAULT_MAX_OUTPUT,
        capabilities=capabilities,
    )
