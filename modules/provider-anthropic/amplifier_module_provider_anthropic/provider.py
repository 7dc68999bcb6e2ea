"""AnthropicProvider: the kernel Provider protocol on top of the official ``anthropic`` SDK (async client).

The SDK is imported when the first client is built (first request or list_models), never at package
import, so mounting costs nothing until the provider is used. The SDK's own retries are off
(``max_retries=0``): every retry goes through the kernel's ``retry_with_backoff`` and is announced with
``provider:retry``.
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

from .catalog import KNOWN_MODELS, find_model, model_limits, uses_adaptive_thinking
from .config import (
    API_KEY_ENV,
    BASE_URL_ENV,
    EFFORT_BUDGETS,
    MIN_THINKING_BUDGET,
    THINKING_ANSWER_ROOM,
    AnthropicConfig,
)
from .convert import (
    WireConversation,
    add_cache_breakpoints,
    chat_response_from_wire,
    final_tool_turn_lacks_thinking,
    messages_to_wire,
    tool_choice_to_wire,
    tools_to_wire,
)
from .errors import translate_error
from .streaming import StreamAccumulator

logger = logging.getLogger(__name__)

PROVIDER_NAME = "anthropic"


class AnthropicProvider:
    api_label = "Anthropic"

    def __init__(
        self, config: AnthropicConfig, *, api_key: str, base_url: str | None = None, coordinator: Any = None
    ) -> None:
        self.config = config
        self.priority = config.priority
        self._api_key = api_key
        self.base_url = base_url
        self._coordinator = coordinator
        self._client = LazyClient(self._new_client)
        self._repairs = RepairAnnouncer(self._emit, provider=PROVIDER_NAME)
        self._announced_drops: set[str] = set()
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
        import anthropic

        return anthropic.AsyncAnthropic(
            api_key=self._api_key, base_url=self.base_url, timeout=self.config.timeout, max_retries=0,
            http_client=sdk_http_client(anthropic.DefaultAsyncHttpxClient),
        )

    async def close(self) -> None:
        await self._client.close()

    # -- description ---------------------------------------------------------------------------------
    def get_info(self) -> ProviderInfo:
        context_window, max_output = model_limits(self.config.default_model)
        return ProviderInfo(
            id=PROVIDER_NAME,
            display_name="Anthropic",
            credential_env_vars=[API_KEY_ENV],
            capabilities=["tools", "streaming", "thinking", "vision"],
            defaults={
                "model": self.config.default_model,
                "max_tokens": self.config.max_tokens,
                "temperature": self.config.temperature,
                "timeout": self.config.timeout,
                "context_window": context_window,
                "max_output_tokens": max_output,
            },
            config_fields=[
                ConfigField(id="api_key", display_name="API key", prompt="Anthropic API key", field_type="secret",
                            env_var=API_KEY_ENV),
                ConfigField(id="base_url", display_name="Base URL", prompt="API base URL (blank for the default)",
                            env_var=BASE_URL_ENV, required=False),
                ConfigField(id="default_model", display_name="Model", prompt="Model", required=False,
                            default=self.config.default_model, choices=[spec.id for spec in KNOWN_MODELS]),
            ],
        )

    async def list_models(self) -> list[ModelInfo]:
        """Models from the API's /v1/models when reachable, else the built-in catalog."""
        try:
            found = []
            async for item in self.client().models.list(limit=100):
                found.append(_model_info(item.id, getattr(item, "display_name", None) or item.id))
            if found:
                return found
        except Exception as error:  # any failure: the static catalog is still a useful answer
            logger.debug("anthropic: listing models failed (%s); using the built-in list", error)
        return [_model_info(spec.id, spec.display_name) for spec in KNOWN_MODELS]

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
        conversation = messages_to_wire(messages)
        await self._announce_repairs(conversation)
        params = self._build_params(request, conversation, model, kwargs)
        params = utf8_safe(params)
        stream = bool(request.stream) and self.config.stream
        await self._emit(events.LLM_REQUEST, {
            "provider": self.name, "model": model, "message_count": len(params["messages"]), "stream": stream,
            "thinking_enabled": "thinking" in params,
        })
        self.client()  # import the SDK and build the client outside the timed window

        async def attempt() -> ChatResponse:
            if stream:
                return await self._stream_once(params, model)
            return await self._create_once(params, model)

        return await complete_with_retries(attempt, emit=self._emit, provider=self.name, model=model,
                                           retry=self._retry_config(), costs=self._costs, sleep=self.retry_sleep)

    def _retry_config(self) -> RetryConfig:
        return retry_config_from(self.config)

    async def _announce_repairs(self, conversation: WireConversation) -> None:
        """Announce the tool-sequence repairs (once per id) and log each dropped orphan result once."""
        await self._repairs.announce(conversation.repairs)
        for call_id in conversation.dropped_result_ids:
            if call_id not in self._announced_drops:
                self._announced_drops.add(call_id)
                logger.warning("anthropic: dropped a tool result for %s: no earlier tool call has that id", call_id)

    def _thinking_budget(self, request: ChatRequest, kwargs: dict[str, Any]) -> int | None:
        settings = self.config.thinking
        effort = request.reasoning_effort or settings.effort
        explicit = kwargs.get("extended_thinking")
        if explicit is not None:
            enabled = bool(explicit)
        elif request.reasoning_effort is not None:
            enabled = request.reasoning_effort not in ("none", "off")
        else:
            enabled = settings.enabled
        if not enabled:
            return None
        budget = kwargs.get("thinking_budget_tokens") or settings.budget_tokens
        if budget is None:
            budget = EFFORT_BUDGETS.get(str(effort or "medium"), EFFORT_BUDGETS["medium"])
        return max(int(budget), MIN_THINKING_BUDGET)

    def _build_params(
        self, request: ChatRequest, conversation: WireConversation, model: str, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        max_tokens = request.max_output_tokens or self.config.max_tokens
        tools = tools_to_wire(request.tools)
        system: Any = conversation.system
        messages = conversation.messages
        if self.config.prompt_caching:
            system, tools, messages = add_cache_breakpoints(conversation.system, tools, messages)
        params: dict[str, Any] = {"model": model, "messages": messages}
        if system:
            params["system"] = system
        if tools:
            params["tools"] = tools
        choice = tool_choice_to_wire(request.tool_choice)
        if choice is not None and tools:
            params["tool_choice"] = choice
        if request.stop:
            params["stop_sequences"] = list(request.stop)
        budget = self._thinking_budget(request, kwargs)
        if budget is not None and final_tool_turn_lacks_thinking(conversation.messages):
            logger.info("anthropic: thinking left off for this request: the pending tool call turn has no "
                        "thinking block to send back (written by another provider or with thinking off)")
            budget = None
        if budget is not None and uses_adaptive_thinking(model):
            params["thinking"] = {"type": "adaptive"}
        elif budget is not None:
            ceiling = model_limits(model)[1] if find_model(model) else None
            max_tokens = max(max_tokens, budget + THINKING_ANSWER_ROOM)
            if ceiling is not None:
                max_tokens = min(max_tokens, ceiling)
            params["thinking"] = {"type": "enabled", "budget_tokens": min(budget, max_tokens - 1)}
        else:
            # SDK 2.x dropped sampling parameters from create(); models that still take them get them raw.
            temperature = request.temperature if request.temperature is not None else self.config.temperature
            sampling: dict[str, float] = {}
            if temperature is not None:
                sampling["temperature"] = temperature
            elif request.top_p is not None:
                sampling["top_p"] = request.top_p
            if sampling:
                params["extra_body"] = sampling
        params["max_tokens"] = max_tokens
        if request.timeout is not None:
            params["timeout"] = request.timeout
        return params

    async def _create_once(self, params: dict[str, Any], model: str) -> ChatResponse:
        try:
            message = await self.client().messages.create(**params)
        except Exception as error:
            mapped = translate_error(error, provider=self.name, model=model, streaming_began=False)
            if mapped is None:
                raise
            raise mapped from error
        return chat_response_from_wire(message.to_dict(), model=model, streamed=False)

    async def _stream_once(self, params: dict[str, Any], model: str) -> ChatResponse:
        accumulator = StreamAccumulator(self._emit, self.name, model)
        began = False
        try:
            stream = await self.client().messages.create(**params, stream=True)
            began = True
            async with stream:
                async for event in stream:
                    await accumulator.feed(event.to_dict())
            message = accumulator.final_message()
        except Exception as error:
            complete = _completed_before(accumulator, error)
            if complete is not None:
                return chat_response_from_wire(complete, model=model, streamed=True)
            mapped = error if isinstance(error, StreamError) else translate_error(
                error, provider=self.name, model=model, streaming_began=began)
            if mapped is None:
                raise
            if began:
                await self._emit("llm:stream_aborted", {"provider": self.name, "model": model, "error": str(mapped)})
            if mapped is error:
                raise
            raise mapped from error
        return chat_response_from_wire(message, model=model, streamed=True)


def _completed_before(accumulator: StreamAccumulator, error: Exception) -> dict[str, Any] | None:
    """The whole message when ``message_stop`` had arrived before the transport failed (only the end of
    the HTTP body was lost): keeping it avoids a retry that would bill and display the answer twice."""
    if isinstance(error, LLMError) or not accumulator.stopped:
        return None
    try:
        message = accumulator.final_message()
    except StreamError:
        return None
    logger.debug("anthropic: the connection closed after message_stop (%s); the message is complete", error)
    return message


def _model_info(model_id: str, display_name: str) -> ModelInfo:
    context_window, max_output = model_limits(model_id)
    return ModelInfo(
        id=model_id, display_name=display_name, context_window=context_window, max_output_tokens=max_output,
        capabilities=["tools", "streaming", "thinking", "vision"],
        defaults={"max_tokens": min(16384, max_output)},
    )
