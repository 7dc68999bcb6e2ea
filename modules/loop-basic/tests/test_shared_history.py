"""With context-simple the loop sends the stored messages' shared read-only models instead of copies: a
provider or hook that tries to change what it received is refused, and the stored history stays whole."""

from __future__ import annotations

import pytest
from loop_basic_doubles import EchoTool, FakeProvider, call, say

from amplifier_core import AmplifierSession
from amplifier_core.message_models import ChatRequest, ChatResponse, Message, TextBlock
from amplifier_core.models import HookResult


def plan() -> dict:
    return {"session": {"orchestrator": "loop-basic", "context": "context-simple"},
            "providers": [{"module": "provider-scripted", "config": {"script": ["unused"]}}]}


async def start(provider: FakeProvider) -> AmplifierSession:
    session = AmplifierSession(plan())
    await session.initialize()
    session.coordinator.mount_points["providers"] = {"fake": provider}
    await session.coordinator.mount("tools", EchoTool())
    return session


async def test_a_provider_changing_request_messages_is_refused_and_history_is_unchanged():
    async def tamper(request: ChatRequest) -> ChatResponse:
        with pytest.raises(TypeError, match="read-only"):
            request.messages[0].content = "rewritten"
        with pytest.raises(TypeError, match="read-only"):
            request.messages[1].content[0].text = "rewritten"
        with pytest.raises(TypeError, match="read-only"):
            request.messages[1].content.append(TextBlock(text="extra"))
        request.messages.pop(0)  # the list itself belongs to this request
        marked = request.messages[0].model_copy(deep=True)  # how a provider changes what it sends
        marked.content[0].text = "marked for the wire"
        return say("second answer")

    session = await start(FakeProvider(say("first answer"), tamper))
    try:
        await session.execute("one")
        context = session.coordinator.get("context")
        before = await context.get_messages()
        await session.execute("two")
        after = await context.get_messages()
        assert after[:2] == before
        assert [m["role"] for m in after] == ["user", "assistant", "user", "assistant"]
        assert after[1]["content"] == [{"type": "text", "text": "first answer"}]
    finally:
        await session.cleanup()


async def test_requests_share_the_same_models_turn_after_turn():
    session = await start(FakeProvider(call(("echo", {"value": "x"}, "c1")), say("done"), say("again")))
    try:
        await session.execute("one")
        await session.execute("two")
        provider = session.coordinator.get("providers")["fake"]
        first, second, third = (request.messages for request in provider.requests)
        assert all(a is b for a, b in zip(first, third, strict=False))
        assert all(a is b for a, b in zip(second, third, strict=False))
        assert [m.role for m in third] == ["user", "assistant", "tool", "assistant", "user"]
    finally:
        await session.cleanup()


async def test_an_ephemeral_injection_reaches_one_request_and_leaves_the_stored_tool_result_alone():
    provider = FakeProvider(call(("echo", {"value": "x"}, "c1")), say("done"))
    session = await start(provider)

    async def remind(event: str, data: dict) -> HookResult:
        return HookResult(action="inject_context", context_injection="remember", ephemeral=True,
                          append_to_last_tool_result=True)

    session.coordinator.hooks.register("tool:post", remind, name="reminder")
    try:
        await session.execute("go")
        sent = provider.requests[1].messages[-1]
        assert isinstance(sent, Message) and sent.content == "echo:x\n\nremember"
        stored = await session.coordinator.get("context").get_messages()
        assert stored[2]["content"] == "echo:x"
    finally:
        await session.cleanup()
