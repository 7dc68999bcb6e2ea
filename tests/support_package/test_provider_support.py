"""Provider-neutral call mechanism: llm:response payloads, the provider:retry announcer, the session cost."""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass
from decimal import Decimal

import pytest
from sessionkit import EventLog

from amplifier_core.llm_errors import AuthenticationError, RateLimitError
from amplifier_core.message_models import ChatResponse, TextBlock, Usage, response_text
from amplifier_core.utils.retry import RetryConfig
from amplifier_support.provider_support import (
    CostTracker,
    RepairAnnouncer,
    complete_with_retries,
    llm_error_payload,
    llm_response_payload,
    retry_announcer,
)


def answer(usage: Usage | None = None, **metadata: object) -> ChatResponse:
    return ChatResponse(content=[TextBlock(text="hi")], usage=usage, finish_reason="stop", metadata=metadata)


def test_response_payload_has_timing_finish_reason_streamed_flag_usage_and_cost_as_text():
    usage = Usage(input_tokens=10, output_tokens=5, total_tokens=15, cost_usd=Decimal("0.0125"))
    payload = llm_response_payload(answer(usage, streamed=True), provider="p", model="m",
                                   started=time.monotonic() - 0.05)
    assert 40 <= payload.pop("duration_ms") < 5000
    assert payload == {"provider": "p", "model": "m", "status": "ok", "finish_reason": "stop", "streamed": True,
                       "usage": {"input_tokens": 10, "output_tokens": 5}, "cost_usd": "0.0125"}


def test_response_payload_lists_only_the_optional_token_counts_the_response_has():
    usage = Usage(input_tokens=10, output_tokens=5, total_tokens=15, cache_read_tokens=3, reasoning_tokens=2)
    payload = llm_response_payload(answer(usage), provider="p", model="m", started=time.monotonic())
    assert payload["usage"] == {"input_tokens": 10, "output_tokens": 5, "cache_read_tokens": 3,
                                "reasoning_tokens": 2}
    assert "cost_usd" not in payload and payload["streamed"] is False


def test_response_payload_without_usage_has_no_usage_or_cost():
    payload = llm_response_payload(answer(), provider="p", model="m", started=time.monotonic())
    assert "usage" not in payload and "cost_usd" not in payload


def test_error_payload_names_the_error_and_its_type():
    payload = llm_error_payload(RateLimitError("slow down"), provider="p", model="m", started=time.monotonic())
    assert payload.pop("duration_ms") >= 0
    assert payload == {"provider": "p", "model": "m", "status": "error", "error": "slow down",
                       "error_type": "RateLimitError"}


async def test_retry_announcer_emits_provider_retry_with_attempt_delay_and_error():
    log = EventLog()
    announce = retry_announcer(log.emit, provider="p", model="m", max_retries=3)
    await announce(2, 1.5, RateLimitError("429 from server", retry_after=1.5))
    assert log.entries == [("provider:retry", {
        "provider": "p", "model": "m", "attempt": 2, "max_retries": 3, "delay": 1.5, "retry_after": 1.5,
        "error_type": "RateLimitError", "message": "429 from server"})]


def test_cost_tracker_is_unknown_until_a_priced_response_then_sums_exactly():
    tracker = CostTracker()
    assert tracker.session_cost() is None
    for cost in ("0.001", "0.002"):
        tracker.add(answer(Usage(input_tokens=1, output_tokens=1, total_tokens=2, cost_usd=Decimal(cost))))
    assert tracker.session_cost() == {"cost_usd": "0.003"}


def test_cost_tracker_stays_unknown_once_any_response_was_unpriced():
    tracker = CostTracker()
    tracker.add(answer(Usage(input_tokens=1, output_tokens=1, total_tokens=2, cost_usd=Decimal("0.5"))))
    tracker.add(answer(Usage(input_tokens=1, output_tokens=1, total_tokens=2)))
    assert tracker.session_cost() is None
    tracker.add(answer(None))
    assert tracker.session_cost() is None


@dataclass(frozen=True)
class Repair:
    tool_call_id: str
    tool_name: str


async def test_repair_announcer_announces_each_repaired_call_once_across_requests():
    log = EventLog()
    announcer = RepairAnnouncer(log.emit, provider="p")
    await announcer.announce([Repair("c1", "write_file")])
    await announcer.announce([Repair("c1", "write_file"), Repair("c2", "bash")])
    await announcer.announce([Repair("c2", "bash")])
    await announcer.announce([])
    assert log.entries == [
        ("provider:tool_sequence_repaired", {"provider": "p", "repair_count": 1,
                                             "repairs": [{"tool_call_id": "c1", "tool_name": "write_file"}]}),
        ("provider:tool_sequence_repaired", {"provider": "p", "repair_count": 1,
                                             "repairs": [{"tool_call_id": "c2", "tool_name": "bash"}]}),
    ]


async def test_complete_with_retries_announces_each_retry_then_reports_and_prices_the_answer():
    log, costs, waits = EventLog(), CostTracker(), []
    outcomes = [RateLimitError("slow down", retry_after=2.0), answer(Usage(
        input_tokens=3, output_tokens=1, total_tokens=4, cost_usd=Decimal("0.5")))]

    async def attempt() -> ChatResponse:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def record_wait(seconds: float) -> None:
        waits.append(seconds)

    response = await complete_with_retries(attempt, emit=log.emit, provider="p", model="m",
                                           retry=RetryConfig(max_retries=2, jitter=False), costs=costs,
                                           sleep=record_wait)
    assert response_text(response) == "hi" and waits == [2.0]
    assert log.names() == ["provider:retry", "llm:response"]
    assert log.of("provider:retry")[0]["attempt"] == 1 and log.of("llm:response")[0]["cost_usd"] == "0.5"
    assert costs.session_cost() == {"cost_usd": "0.5"}


async def test_complete_with_retries_reports_an_error_response_and_raises_when_retries_cannot_help():
    log, costs = EventLog(), CostTracker()

    async def attempt() -> ChatResponse:
        raise AuthenticationError("bad key; set THE_KEY")

    with pytest.raises(AuthenticationError):
        await complete_with_retries(attempt, emit=log.emit, provider="p", model="m", retry=RetryConfig(),
                                    costs=costs)
    [report] = log.of("llm:response")
    assert report["status"] == "error" and report["error_type"] == "AuthenticationError"
    assert log.names() == ["llm:response"]


async def test_emit_via_reaches_the_hooks_or_does_nothing_without_a_coordinator() -> None:
    from types import SimpleNamespace

    from amplifier_core import HookRegistry
    from amplifier_support.provider_support import emit_via

    hooks = HookRegistry()
    seen: list[str] = []

    async def record(event: str, data: dict) -> None:
        seen.append(event)

    hooks.register("llm:request", record)
    await emit_via(SimpleNamespace(hooks=hooks), "llm:request", {})
    await emit_via(None, "llm:request", {})
    assert seen == ["llm:request"]


def test_callable_tool_calls_drop_calls_whose_arguments_did_not_parse() -> None:
    from amplifier_core import ChatResponse, ToolCall
    from amplifier_support.provider_support import callable_tool_calls

    good = ToolCall(id="1", name="a", arguments={})
    broken = ToolCall.model_construct(id="2", name="b", arguments=None)
    assert callable_tool_calls(ChatResponse(content=[], tool_calls=[good, broken])) == [good]
    assert callable_tool_calls(ChatResponse(content=[])) == []


def test_retry_config_from_a_providers_retry_keys() -> None:
    from types import SimpleNamespace

    from amplifier_support.provider_support import retry_config_from

    config = retry_config_from(SimpleNamespace(max_retries=4, min_retry_delay=0.5, max_retry_delay=9.0,
                                               retry_jitter=False))
    assert config == RetryConfig(max_retries=4, initial_delay=0.5, max_delay=9.0, jitter=False)


async def test_lazy_client_is_built_once_and_closed_once() -> None:
    from amplifier_support.provider_support import LazyClient

    built: list[object] = []

    class Client:
        closed = 0

        async def close(self) -> None:
            Client.closed += 1

    def factory() -> Client:
        built.append(Client())
        return built[-1]

    lazy = LazyClient(factory)
    await lazy.close()
    assert built == []
    assert lazy.get() is lazy.get() and len(built) == 1
    await lazy.close()
    await lazy.close()
    assert Client.closed == 1


def test_sdk_http_clients_share_one_verifying_tls_context_and_keep_the_sdks_defaults(monkeypatch) -> None:
    import ssl

    import anthropic
    import openai

    from amplifier_support import provider_support

    library = importlib.import_module(anthropic.DefaultAsyncHttpxClient.__mro__[1].__module__.partition(".")[0])
    built: list[ssl.SSLContext] = []
    real = library.create_ssl_context
    monkeypatch.setattr(library, "create_ssl_context", lambda *a, **k: built.append(real(*a, **k)) or built[-1])
    monkeypatch.setattr(provider_support, "_TLS_CONTEXTS", {})

    clients = [provider_support.sdk_http_client(anthropic.DefaultAsyncHttpxClient) for _ in range(2)]
    clients.append(provider_support.sdk_http_client(openai.DefaultAsyncHttpxClient))

    assert len(built) == 1 and len({id(client) for client in clients}) == 3  # one context, separate clients
    assert built[0].verify_mode == ssl.CERT_REQUIRED and built[0].check_hostname
    default = anthropic.DefaultAsyncHttpxClient()
    assert (clients[0].timeout, clients[0].follow_redirects) == (default.timeout, default.follow_redirects)
