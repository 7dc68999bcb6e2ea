"""`/compact`'s work (sessions/manual_compaction.py) against stand-ins for the mounted context and provider:
what is refused leaves the conversation as it was; a summary replaces it after the system instruction."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from amplifier_cli.sessions.manual_compaction import SUMMARY_SOURCE, CompactionRefused, compact_now
from amplifier_core.message_models import ChatResponse, TextBlock


class _Context:
    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages

    async def get_messages(self) -> list[dict[str, Any]]:
        return list(self.messages)

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        self.messages = list(messages)

    async def add_message(self, message: dict[str, Any]) -> None:
        self.messages.append(message)


class _Provider:
    def __init__(self, answer: str | Exception) -> None:
        self.answer = answer
        self.requests: list[Any] = []

    async def complete(self, request: Any) -> ChatResponse:
        self.requests.append(request)
        if isinstance(self.answer, Exception):
            raise self.answer
        return ChatResponse(content=[TextBlock(text=self.answer)])


class _Hooks:
    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    async def emit(self, event: str, data: dict[str, Any]) -> None:
        self.events.append((event, data))


class _Coordinator:
    def __init__(self, context: _Context, provider: _Provider) -> None:
        self.mounted = {"context": context, "providers": {"fake": provider}}
        self.hooks = _Hooks()

    def get(self, name: str) -> Any:
        return self.mounted[name]


CONVERSATION = [{"role": "system", "content": "instruction"}, {"role": "user", "content": "tell me about pears"},
                {"role": "assistant", "content": [{"type": "text", "text": "pears are " + "sweet " * 100}]}]


def test_a_summary_replaces_the_conversation_after_the_instruction_and_the_receipt_is_emitted() -> None:
    context, provider = _Context(list(CONVERSATION)), _Provider("the user likes pears")
    coordinator = _Coordinator(context, provider)
    receipt = asyncio.run(compact_now(coordinator, "fake", "pear kinds"))
    assert context.messages[0] == {**CONVERSATION[0], "metadata": {"compact_boundary": True}}  # where it starts
    assert context.messages[1]["metadata"] == {"source": SUMMARY_SOURCE}
    assert context.messages[1]["content"].endswith("the user likes pears") and len(context.messages) == 2
    assert (receipt.messages_before, receipt.messages_after) == (3, 2) and receipt.tokens_after < receipt.tokens_before
    asked = provider.requests[0].messages[-1].content
    assert "Be sure to keep: pear kinds" in asked and "tell me about pears" in asked
    [(before, asked_for), (event, data)] = coordinator.hooks.events
    assert before == "context:pre_compact" and asked_for["trigger"] == "manual"
    assert asked_for["custom_instructions"] == "pear kinds" and asked_for["message_count"] == 3
    assert event == "context:post_compact" and data["trigger"] == "manual" and data["summary"]


@pytest.mark.parametrize(("messages", "answer", "reason"), [
    ([{"role": "system", "content": "instruction"}], "unused", "nothing to compact"),
    (CONVERSATION, RuntimeError("overloaded"), "could not write the summary"),
    (CONVERSATION, "   ", "empty summary"),
])
def test_what_is_refused_leaves_the_conversation_as_it_was(messages: list, answer: Any, reason: str) -> None:
    context = _Context(list(messages))
    with pytest.raises(CompactionRefused, match=reason):
        asyncio.run(compact_now(_Coordinator(context, _Provider(answer)), "fake"))
    assert context.messages == messages


def test_a_second_compaction_moves_the_boundary_to_its_own_first_message() -> None:
    context = _Context(list(CONVERSATION))
    asyncio.run(compact_now(_Coordinator(context, _Provider("first")), "fake"))
    context.messages.append({"role": "user", "content": "and apples?"})
    asyncio.run(compact_now(_Coordinator(context, _Provider("second")), "fake"))
    flags = [(message.get("metadata") or {}).get("compact_boundary") for message in context.messages]
    assert flags == [True, None] and context.messages[1]["content"].endswith("second")


async def test_a_compaction_the_disk_refuses_leaves_the_conversation_and_the_transcript_as_they_were(
        tmp_path) -> None:
    import os

    from amplifier_cli.sessions.store import SessionStore
    from amplifier_cli.sessions.store.recording_context import RecordingContext

    record = SessionStore(tmp_path / "sessions").create(cwd=tmp_path, project=tmp_path)
    context = RecordingContext(_Context([]), record.writer)
    for message in CONVERSATION:
        await context.add_message(message)
    before = record.transcript_path.read_bytes()
    full = os.open("/dev/full", os.O_WRONLY)  # every write to the transcript now fails: no space left on device
    os.dup2(full, record.writer._descriptor)
    os.close(full)
    with pytest.raises(CompactionRefused, match="No space left on device; the conversation is unchanged"):
        await compact_now(_Coordinator(context, _Provider("summary")), "fake")
    assert await context.get_messages() == CONVERSATION
    assert record.transcript_path.read_bytes() == before
