"""request_id pairs an LLM call's events, per task, and an explicit id always wins."""

from __future__ import annotations

import asyncio
from typing import Any

from amplifier_core import HookRegistry
from amplifier_core.correlation import current_request_id, reset_request_id


def recording(hooks: HookRegistry, *events: str) -> list[tuple[str, Any]]:
    seen: list[tuple[str, Any]] = []

    async def handler(event: str, data: dict[str, Any]) -> None:
        seen.append((event, data.get("request_id")))

    for event in events:
        hooks.register(event, handler)
    return seen


async def test_request_response_and_retry_share_one_id_and_the_call_closes() -> None:
    reset_request_id()
    hooks = HookRegistry()
    seen = recording(hooks, "llm:request", "provider:retry", "llm:response", "tool:pre")
    await hooks.emit("llm:request", {})
    await hooks.emit("provider:retry", {})
    await hooks.emit("llm:response", {})
    await hooks.emit("tool:pre", {})
    ids = [request_id for _, request_id in seen]
    assert ids[0] is not None and ids[:3] == [ids[0]] * 3 and ids[3] is None
    assert current_request_id() is None


async def test_concurrent_calls_in_two_tasks_get_distinct_ids() -> None:
    hooks = HookRegistry()
    seen = recording(hooks, "llm:request", "llm:response")
    both_open = asyncio.Barrier(2)  # each call's request is out before either response comes back

    async def call() -> None:
        await hooks.emit("llm:request", {})
        await both_open.wait()
        await hooks.emit("llm:response", {})

    await asyncio.gather(call(), call())
    requests = [rid for event, rid in seen if event == "llm:request"]
    responses = [rid for event, rid in seen if event == "llm:response"]
    assert len(set(requests)) == 2 and sorted(responses) == sorted(requests)


async def test_explicit_id_wins_and_a_response_without_request_gets_none() -> None:
    reset_request_id()
    hooks = HookRegistry()
    seen = recording(hooks, "llm:request", "llm:response")
    await hooks.emit("llm:response", {})
    await hooks.emit("llm:request", {"request_id": "mine"})
    await hooks.emit("llm:response", {})
    assert seen == [("llm:response", None), ("llm:request", "mine"), ("llm:response", "mine")]
