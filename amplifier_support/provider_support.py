"""What every LLM provider module does around a call, whatever its SDK: the ``llm:response`` payloads, the
``provider:retry`` and ``provider:tool_sequence_repaired`` announcements, the running cost behind its
``session.cost`` contributor, and the last check of a request payload before it is encoded."""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable, Iterable
from decimal import Decimal
from typing import Any, Protocol

from amplifier_core import events
from amplifier_core.llm_errors import LLMError
from amplifier_core.message_models import ChatResponse, ToolCall
from amplifier_core.utils.retry import RetryConfig, retry_with_backoff

EventEmitter = Callable[[str, dict[str, Any]], Awaitable[Any]]
RetryAnnouncer = Callable[[int, float, LLMError], Awaitable[None]]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

# Usage counts a provider may not report; each appears in the payload only when the response has it.
_OPTIONAL_TOKEN_COUNTS = ("cache_read_tokens", "cache_write_tokens", "reasoning_tokens")


def _elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def llm_response_payload(response: ChatResponse, *, provider: str, model: str, started: float) -> dict[str, Any]:
    """``llm:response`` data for a completed call; ``started`` is ``time.monotonic()`` before the first attempt."""
    data: dict[str, Any] = {
        "provider": provider, "model": model, "status": "ok", "duration_ms": _elapsed_ms(started),
        "finish_reason": response.finish_reason, "streamed": bool((response.metadata or {}).get("streamed")),
    }
    usage = response.usage
    if usage is not None:
        summary: dict[str, Any] = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
        for name in _OPTIONAL_TOKEN_COUNTS:
            if getattr(usage, name) is not None:
                summary[name] = getattr(usage, name)
        data["usage"] = summary
        if usage.cost_usd is not None:
            data["cost_usd"] = str(usage.cost_usd)
    return data


def llm_error_payload(error: LLMError, *, provider: str, model: str, started: float) -> dict[str, Any]:
    """``llm:response`` data for a call that failed after its retries (``status: "error"``)."""
    return {
        "provider": provider, "model": model, "status": "error", "duration_ms": _elapsed_ms(started),
        "error": str(error), "error_type": type(error).__name__,
    }


def retry_announcer(emit: EventEmitter, *, provider: str, model: str, max_retries: int) -> RetryAnnouncer:
    """An ``on_retry`` for ``retry_with_backoff`` that emits ``provider:retry`` before each backoff wait."""

    async def announce(attempt: int, delay: float, error: LLMError) -> None:
        await emit(events.PROVIDER_RETRY, {
            "provider": provider, "model": model, "attempt": attempt, "max_retries": max_retries,
            "delay": delay, "retry_after": error.retry_after, "error_type": type(error).__name__,
            "message": str(error),
        })

    return announce


async def complete_with_retries(
    attempt: Callable[[], Awaitable[ChatResponse]],
    *,
    emit: EventEmitter,
    provider: str,
    model: str,
    retry: RetryConfig,
    costs: CostTracker,
    sleep: Callable[[float], Awaitable[Any]] | None = None,
) -> ChatResponse:
    """One provider call as the bundled providers make it: ``attempt`` retried with backoff (each retry
    announced as ``provider:retry``), the response's cost added to ``costs``, then ``llm:response`` with usage and
    cost; when the retries run out, an error ``llm:response`` and the error is raised."""
    started = time.monotonic()
    announce = retry_announcer(emit, provider=provider, model=model, max_retries=retry.max_retries)
    try:
        if sleep is None:
            response = await retry_with_backoff(attempt, retry, on_retry=announce)
        else:
            response = await retry_with_backoff(attempt, retry, on_retry=announce, sleep=sleep)
    except LLMError as error:
        await emit(events.LLM_RESPONSE, llm_error_payload(error, provider=provider, model=model, started=started))
        raise
    costs.add(response)
    await emit(events.LLM_RESPONSE, llm_response_payload(response, provider=provider, model=model, started=started))
    return response


class ToolRepair(Protocol):
    """A tool call the provider answered with a synthetic result because the history had none."""

    @property
    def tool_call_id(self) -> str: ...

    @property
    def tool_name(self) -> str: ...


class RepairAnnouncer:
    """Emits ``provider:tool_sequence_repaired`` once per repaired call id: a provider repairs the same hole in
    the history again on every later request, but a hook should hear about it only the first time."""

    def __init__(self, emit: EventEmitter, *, provider: str) -> None:
        self._emit = emit
        self._provider = provider
        self._announced: set[str] = set()

    async def announce(self, repairs: Iterable[ToolRepair]) -> None:
        """Announce the repairs not announced before (nothing is emitted when there are none)."""
        fresh = [repair for repair in repairs if repair.tool_call_id not in self._announced]
        if not fresh:
            return
        self._announced.update(repair.tool_call_id for repair in fresh)
        await self._emit(events.PROVIDER_TOOL_SEQUENCE_REPAIRED, {
            "provider": self._provider, "repair_count": len(fresh),
            "repairs": [{"tool_call_id": r.tool_call_id, "tool_name": r.tool_name} for r in fresh],
        })


class CostTracker:
    """Running USD cost of a provider's responses, reported as unknown once any response had no price."""

    def __init__(self) -> None:
        self._total = Decimal(0)
        self._priced = 0
        self._unpriced = 0

    def add(self, response: ChatResponse) -> None:
        """Count one completed response (its ``usage.cost_usd``; None or no usage = unpriced)."""
        cost = response.usage.cost_usd if response.usage else None
        if cost is None:
            self._unpriced += 1
        else:
            self._priced += 1
            self._total += cost

    def session_cost(self) -> dict[str, str] | None:
        """The ``session.cost`` contribution: ``{"cost_usd": "<decimal>"}``, or None before any priced
        response and as soon as one was unpriced (a partial sum would understate the cost)."""
        if not self._priced or self._unpriced:
            return None
        return {"cost_usd": str(self._total)}


def utf8_safe(value: Any) -> Any:
    """A copy of ``value`` (a request payload of dicts, lists and strings) with every lone UTF-16 surrogate
    replaced by U+FFFD. Python decodes undecodable argv, stdin and file-name bytes to lone surrogates, which
    UTF-8 cannot encode: the SDK would fail while encoding the request."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value) if _LONE_SURROGATE.search(value) else value
    if isinstance(value, dict):
        return {utf8_safe(key): utf8_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(utf8_safe(item) for item in value)
    return value


async def emit_via(coordinator: Any, event: str, data: dict[str, Any]) -> None:
    """Emit on the coordinator's hooks; a provider built without a coordinator (tests, tools) emits nothing."""
    hooks = getattr(coordinator, "hooks", None)
    if hooks is not None:
        await hooks.emit(event, data)


def callable_tool_calls(response: ChatResponse) -> list[ToolCall]:
    """``parse_tool_calls``: the response's tool calls, less those whose arguments could not be parsed."""
    return [call for call in response.tool_calls or [] if call.arguments is not None]


class RetrySettings(Protocol):
    """The retry keys every provider's config has (``max_retries``, ``min_retry_delay`` ...)."""

    max_retries: int
    min_retry_delay: float
    max_retry_delay: float
    retry_jitter: bool


def retry_config_from(settings: RetrySettings) -> RetryConfig:
    """The RetryConfig a provider's own retry keys describe."""
    return RetryConfig(max_retries=settings.max_retries, initial_delay=settings.min_retry_delay,
                       max_delay=settings.max_retry_delay, jitter=bool(settings.retry_jitter))


class LazyClient:
    """An SDK client built on first use (so the SDK is imported only when a request is made) and closed
    once. ``factory`` imports the SDK and builds the client."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._client: Any = None

    def get(self) -> Any:
        if self._client is None:
            self._client = self._factory()
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()


_TLS_CONTEXTS: dict[str, Any] = {}  # HTTP library (httpx, httpx2) -> the TLS context its default settings build


def sdk_http_client(default_client_class: type) -> Any:
    """A new HTTP client of an SDK's own default class (``anthropic.DefaultAsyncHttpxClient``: its timeouts,
    limits and redirects stay) on this process's one TLS context. Building a context loads the certificate store,
    20-50 ms of CPU that every provider instance paid again (sub-agents, `/model`, each session of a process).
    The context is built as the HTTP library builds its default (the same trust store and environment); only it
    is shared, never connections."""
    import sys

    library: Any = None
    for base in default_client_class.__mro__[1:]:  # its base is the HTTP library's client (imported with it)
        library = sys.modules.get(base.__module__.partition(".")[0])
        if hasattr(library, "create_ssl_context"):
            break
    else:  # an HTTP library without it: the SDK's default, context and all
        return default_client_class()
    context = _TLS_CONTEXTS.get(library.__name__)
    if context is None:
        context = _TLS_CONTEXTS[library.__name__] = library.create_ssl_context()
    return default_client_class(verify=context)
