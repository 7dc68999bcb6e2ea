"""Hook results are honoured: deny, modify, ask_user (through the coordinator's approval system) and
inject_context, persistent and ephemeral, including append_to_last_tool_result."""

from __future__ import annotations

from typing import Any

from loop_basic_doubles import EchoTool, FakeProvider, call, say

from amplifier_core.models import HookResult
from amplifier_core.testing import MockApprovalSystem


def answer(result: HookResult):
    async def handler(event: str, data: dict[str, Any]) -> HookResult:
        return result
    return handler


async def test_prompt_submit_deny_returns_the_reason_without_calling_the_provider(harness) -> None:
    harness.on("prompt:submit", answer(HookResult(action="deny", reason="no prompts today")))
    provider = FakeProvider()
    assert await harness.run("hi", provider) == "Operation denied: no prompts today"
    assert provider.requests == [] and harness.messages == []
    assert harness.data("orchestrator:complete")[0]["status"] == "denied"
    assert harness.data("execution:end")[0]["status"] == "denied"


async def test_prompt_submit_modify_replaces_the_stored_prompt(harness) -> None:
    async def redact(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="modify", data={**data, "prompt": data["prompt"].replace("sk-123", "[KEY]")})
    harness.on("prompt:submit", redact)
    await harness.run("my key is sk-123", FakeProvider(say("ok")))
    assert harness.messages[0]["content"] == "my key is [KEY]"


async def test_prompt_submit_ephemeral_injection_reaches_the_first_request_only(harness) -> None:
    harness.on("prompt:submit", answer(HookResult(action="inject_context", context_injection="today is Monday",
                                                  ephemeral=True, context_injection_role="user")))
    provider = FakeProvider(call(("echo", {}, "c1")), say("ok"))
    await harness.run("q", provider, [EchoTool()])
    first, second = provider.requests
    assert first.messages[-1].content == "today is Monday" and first.messages[-1].role == "user"
    assert all(message.content != "today is Monday" for message in second.messages)
    assert all(message.get("content") != "today is Monday" for message in harness.messages)


async def test_mixed_durable_and_ephemeral_injections_each_reach_the_request_once(harness) -> None:
    from amplifier_core.models import ContextInjection

    harness.on("prompt:submit", answer(HookResult(action="inject_context", context_injections=[
        ContextInjection(content="durable rule", role="system"),
        ContextInjection(content="just for now", role="user", ephemeral=True),
    ])))
    provider = FakeProvider(say("ok"))
    await harness.run("q", provider)
    texts = [message.content for message in provider.requests[0].messages]
    assert texts.count("durable rule") == 1 and texts.count("just for now") == 1
    stored = [message.get("content") for message in harness.messages]
    assert "durable rule" in stored and "just for now" not in stored


async def test_persistent_injection_at_provider_request_is_stored_before_the_request(harness) -> None:
    harness.on("provider:request", answer(HookResult(action="inject_context", context_injection="remember X")))
    provider = FakeProvider(say("ok"))
    await harness.run("q", provider)
    assert provider.requests[0].messages[1].content == "remember X"
    assert harness.messages[1]["role"] == "system" and harness.messages[1]["metadata"]["source"] == "hook"


async def test_provider_request_deny_stops_the_turn_and_closes_the_transcript(harness) -> None:
    harness.on("provider:request", answer(HookResult(action="deny", reason="budget exhausted")))
    provider = FakeProvider()
    assert await harness.run("q", provider) == "Operation denied: budget exhausted"
    assert provider.requests == []
    assert harness.messages[-1] == {"role": "assistant",
                                    "content": [{"type": "text", "text": "Operation denied: budget exhausted"}]}


async def test_tool_pre_deny_becomes_an_error_result_and_a_tool_error_event(harness) -> None:
    harness.on("tool:pre", answer(HookResult(action="deny", reason="not allowed")))
    tool = EchoTool()
    await harness.run("q", FakeProvider(call(("echo", {"value": "1"}, "c1")), say("ok")), [tool])
    assert tool.inputs == []
    assert harness.messages[2]["content"] == "Denied by hook: not allowed"
    error = harness.data("tool:error")[0]
    assert error["error"] == {"type": "ToolDenied", "msg": "not allowed"} and error["tool_call_id"] == "c1"
    assert harness.data("tool:post") == []


async def test_tool_pre_modify_changes_the_tool_input(harness) -> None:
    async def rewrite(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="modify", data={**data, "tool_input": {"value": "safe"}})
    harness.on("tool:pre", rewrite)
    tool = EchoTool()
    await harness.run("q", FakeProvider(call(("echo", {"value": "rm"}, "c1")), say("ok")), [tool])
    assert tool.inputs == [{"value": "safe"}] and harness.messages[2]["content"] == "echo:safe"
    assert harness.messages[1]["tool_calls"][0]["arguments"] == {"value": "rm"}  # what the model asked


async def test_tool_pre_ask_user_goes_through_the_approval_system(harness) -> None:
    approval = MockApprovalSystem("Deny")
    harness.coordinator.approval_system = approval
    harness.on("tool:pre", answer(HookResult(action="ask_user", approval_prompt="Run echo?")))
    tool = EchoTool()
    await harness.run("q", FakeProvider(call(("echo", {}, "c1")), say("ok")), [tool])
    assert approval.requests[0]["prompt"] == "Run echo?" and tool.inputs == []
    assert harness.messages[2]["content"] == "Denied by hook: User denied: Run echo?"


async def test_tool_pre_ask_user_allowed_runs_the_tool(harness) -> None:
    harness.on("tool:pre", answer(HookResult(action="ask_user", approval_prompt="Run echo?")))
    tool = EchoTool()
    await harness.run("q", FakeProvider(call(("echo", {"value": "v"}, "c1")), say("ok")), [tool])
    assert tool.inputs == [{"value": "v"}]


async def test_tool_post_modify_replaces_the_result_the_model_sees(harness) -> None:
    async def censor(event: str, data: dict[str, Any]) -> HookResult:
        return HookResult(action="modify", data={**data, "result": {**data["result"], "output": "[censored]"}})
    harness.on("tool:post", censor)
    await harness.run("q", FakeProvider(call(("echo", {}, "c1")), say("ok")), [EchoTool()])
    assert harness.messages[2]["content"] == "[censored]"


async def test_tool_post_ephemeral_injection_is_appended_to_the_last_tool_result_of_the_next_request(
        harness) -> None:
    harness.on("tool:post", answer(HookResult(action="inject_context", context_injection="reminder: be brief",
                                              ephemeral=True, append_to_last_tool_result=True)))
    provider = FakeProvider(call(("echo", {"value": "1"}, "c1")), say("ok"))
    await harness.run("q", provider, [EchoTool()])
    last = provider.requests[1].messages[-1]
    assert last.role == "tool" and last.content == "echo:1\n\nreminder: be brief"
    assert harness.messages[2]["content"] == "echo:1"  # never stored


async def test_persistent_injection_from_tool_hooks_is_stored_after_all_tool_results(harness) -> None:
    harness.on("tool:post", answer(HookResult(action="inject_context", context_injection="note",
                                              context_injection_role="user")))
    calls = call(("echo", {"value": "a"}, "c1"), ("echo", {"value": "b"}, "c2"))
    await harness.run("q", FakeProvider(calls, say("ok")), [EchoTool()])
    assert [message["role"] for message in harness.messages] == [
        "user", "assistant", "tool", "tool", "user", "user", "assistant"]
    assert harness.messages[4]["content"] == "note"


async def test_ephemeral_injection_without_a_tool_result_is_added_as_a_message(harness) -> None:
    harness.on("provider:request", answer(HookResult(action="inject_context", context_injection="env: linux",
                                                     ephemeral=True, append_to_last_tool_result=True)))
    provider = FakeProvider(say("ok"))
    await harness.run("q", provider)
    assert provider.requests[0].messages[-1].content == "env: linux"
    assert provider.requests[0].messages[-1].role == "system"


async def test_hook_user_message_is_shown_through_the_display_system(harness) -> None:
    harness.on("tool:pre", answer(HookResult(action="deny", reason="r", user_message="heads up",
                                             user_message_level="warning")))
    await harness.run("q", FakeProvider(call(("echo", {}, "c1")), say("ok")), [EchoTool()])
    assert harness.coordinator.display_system.messages[0]["message"] == "heads up"


class _CrashingApproval:
    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        raise RuntimeError("approval UI crashed")


async def test_a_failing_approval_system_denies_the_tool_with_an_error_result_naming_the_failure(harness) -> None:
    harness.coordinator.approval_system = _CrashingApproval()
    harness.on("tool:pre", answer(HookResult(action="ask_user", approval_prompt="Run echo?")))
    tool = EchoTool()
    assert await harness.run("q", FakeProvider(call(("echo", {}, "c1")), say("ok")), [tool]) == "ok"
    assert tool.inputs == []
    result = harness.messages[2]
    assert result["tool_call_id"] == "c1" and "approval UI crashed" in result["content"]
    assert "cancelled" not in result["content"]
    assert harness.names("tool:") == ["tool:pre", "tool:error"]
    assert harness.data("tool:error")[0]["error"]["type"] == "RuntimeError"
