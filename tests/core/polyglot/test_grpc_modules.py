"""gRPC modules mounted through the loader: a tool, a provider (streaming included), a hook and a context
manager, each a service served in this process with grpcio; and one clear error for a dead endpoint."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from polyglot.layout import grpc_module
from polyglot.servers import EchoTool, ListContext, NoteHook, ScriptedProvider, Turn, serving

from amplifier_core import ChatRequest, Message, ModuleCoordinator
from amplifier_core.loader import ModuleLoader, ModuleValidationError
from amplifier_core.module_sources import ModuleSource


class PathSource(ModuleSource):
    def __init__(self, path: Path) -> None:
        self.path = path

    def resolve(self) -> Path:
        return self.path


class PathResolver:
    def __init__(self, paths: dict[str, Path]) -> None:
        self.paths = paths

    def resolve(self, module_id: str, source_hint: Any = None, profile_hint: Any = None) -> ModuleSource:
        return PathSource(self.paths[module_id])


class BareSession:
    session_id = "polyglot-test"
    parent_id = None
    config: dict[str, Any] = {"session": {}}


async def mounted(module_id: str, directory: Path, config: dict[str, Any] | None = None) -> tuple[Any, Any]:
    coordinator = ModuleCoordinator(session=BareSession())
    await coordinator.mount("module-source-resolver", PathResolver({module_id: directory}))
    mount = await ModuleLoader(coordinator).load(module_id, config or {})
    cleanup = await mount(coordinator)
    return coordinator, cleanup


async def test_a_grpc_tool_is_mounted_and_executes(tmp_path: Path) -> None:
    tool_service = EchoTool()
    with serving(tool_service) as endpoint:
        coordinator, cleanup = await mounted("tool-grpc", grpc_module(tmp_path / "m", endpoint))
        tool = coordinator.get("tools")["grpc_echo"]
        ok = await tool.execute({"text": "hi"})
        failed = await tool.execute({"text": "fail"})
        await cleanup()
    assert tool.input_schema["required"] == ["text"]
    assert (ok.success, ok.output) == (True, {"echoed": "hi"})
    assert (failed.success, failed.error) == (False, {"message": "asked to fail"})
    assert tool_service.calls == [{"text": "hi"}, {"text": "fail"}]


async def test_a_grpc_provider_completes_and_streams_with_events(tmp_path: Path) -> None:
    service = ScriptedProvider([Turn(text="plain answer"),
                                Turn(text="streamed answer here", tool_calls=[("c1", "grpc_echo", {"text": "x"})])])
    with serving(service) as endpoint:
        coordinator, cleanup = await mounted("provider-poly", grpc_module(tmp_path / "p", endpoint, "provider"))
        provider = coordinator.get("providers")["polyglot"]
        seen: list[tuple[str, dict[str, Any]]] = []

        async def record(event: str, data: dict[str, Any]) -> Any:
            seen.append((event, data))

        for event in ("content_block:start", "content_block:delta", "content_block:end"):
            coordinator.hooks.register(event, record)
        request = ChatRequest(messages=[Message(role="user", content="hello")])
        plain = await provider.complete(request)
        streamed = await provider.complete(request.model_copy(update={"stream": True}))
        models = await provider.list_models()
        await cleanup()
    assert provider.get_info().display_name == "Polyglot (gRPC)"
    assert [model.id for model in models] == ["poly-1"]
    assert plain.content[0].text == "plain answer" and plain.usage.input_tokens == 10
    assert streamed.content[0].text == "streamed answer here"
    calls = [(call.id, call.name, call.arguments) for call in streamed.tool_calls]
    assert calls == [("c1", "grpc_echo", {"text": "x"})]
    assert streamed.metadata["streamed"] is True
    deltas = [data["delta"] for event, data in seen if event == "content_block:delta"]
    assert deltas == ["streamed", " answer", " here"]
    assert seen[-1][0] == "content_block:end" and seen[-1][1]["provider"] == "polyglot"
    assert service.requests[0].messages[0].text_content == "hello"


async def test_a_grpc_hook_subscribes_with_its_config_and_answers(tmp_path: Path) -> None:
    hook = NoteHook()
    with serving(hook) as endpoint:
        coordinator, cleanup = await mounted("hooks-poly", grpc_module(tmp_path / "h", endpoint, "hook"),
                                             {"note": "remember the milk"})
        result = await coordinator.hooks.emit("prompt:submit", {"prompt": "hi"})
        await cleanup()
        after = await coordinator.hooks.emit("prompt:submit", {"prompt": "again"})
    assert result.action == "inject_context" and result.context_injection == "remember the milk"
    assert hook.seen[0][0] == "prompt:submit" and hook.seen[0][1]["prompt"] == "hi"
    assert after.action == "continue" and len(hook.seen) == 1  # unregistered at cleanup


async def test_a_grpc_context_keeps_messages_round_trip(tmp_path: Path) -> None:
    with serving(ListContext()) as endpoint:
        coordinator, cleanup = await mounted("context-poly", grpc_module(tmp_path / "c", endpoint, "context"))
        context = coordinator.get("context")
        call = {"type": "tool_call", "id": "t1", "name": "x", "input": {"a": 1}}
        assistant = {"role": "assistant", "content": [{"type": "text", "text": "calling"}, call],
                     "tool_calls": [{"id": "t1", "tool": "x", "arguments": {"a": 1}}]}
        await context.add_message({"role": "user", "content": "hi"})
        await context.add_message(assistant)
        await context.add_message({"role": "tool", "tool_call_id": "t1", "name": "x", "content": "done"})
        messages = await context.get_messages()
        await context.clear()
        cleared = await context.get_messages()
        await cleanup()
    assert messages[1] == assistant
    assert messages[2] == {"role": "tool", "tool_call_id": "t1", "name": "x", "content": "done"}
    assert cleared == []


def dead_endpoint() -> str:
    with socket.socket() as probe:  # a port nothing listens on (bound, then closed)
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


async def test_a_dead_endpoint_is_one_clear_error(tmp_path: Path) -> None:
    endpoint = dead_endpoint()
    with pytest.raises(ModuleValidationError) as raised:
        await mounted("tool-dead", grpc_module(tmp_path / "d", endpoint))
    text = str(raised.value)
    assert f"Module 'tool-dead': cannot reach its gRPC service at {endpoint}" in text
    assert "grpc.endpoint" in text and "amplifier.toml" in text


async def test_2_0_2s_load_grpc_module_mounts_a_tool_with_its_dict_results() -> None:
    from amplifier_core.loader_grpc import load_grpc_module

    with serving(EchoTool()) as endpoint:
        coordinator = ModuleCoordinator(session=BareSession())
        mount = await load_grpc_module("tool-old", None, {"grpc": {"endpoint": endpoint}}, coordinator)
        cleanup = await mount(coordinator)
        bridge = coordinator.get("tools")["grpc_echo"]
        answer = await bridge.execute(text="hi")
        await cleanup()
    assert bridge.get_spec()["parameters"]["required"] == ["text"]
    assert answer == {"success": True, "output": {"echoed": "hi"}, "error": None}


async def test_without_the_polyglot_extra_one_message_names_it(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "grpc.aio", None)  # as if grpcio were not installed
    with pytest.raises(ModuleValidationError) as raised:
        await mounted("tool-noextra", grpc_module(tmp_path / "x", "127.0.0.1:1"))
    assert "pip install 'amplifier[polyglot]'" in str(raised.value)


@pytest.mark.parametrize(("status", "error_class", "retryable"), [
    ("RESOURCE_EXHAUSTED", "RateLimitError", True),
    ("UNAUTHENTICATED", "AuthenticationError", False),
    ("INTERNAL", "ProviderUnavailableError", False),
])
async def test_a_failed_provider_rpc_is_the_kernels_llm_error(tmp_path: Path, status: str, error_class: str,
                                                              retryable: bool) -> None:
    import grpc

    from amplifier_core import llm_errors

    service = ScriptedProvider([], fail_with=getattr(grpc.StatusCode, status))
    with serving(service) as endpoint:
        coordinator, cleanup = await mounted("provider-busy", grpc_module(tmp_path / "p", endpoint, "provider"))
        with pytest.raises(llm_errors.LLMError) as raised:
            await coordinator.get("providers")["polyglot"].complete(
                ChatRequest(messages=[Message(role="user", content="hi")]))
        await cleanup()
    assert type(raised.value).__name__ == error_class and raised.value.retryable is retryable
    assert raised.value.provider == "polyglot" and "the model is busy" in str(raised.value)


async def test_a_hook_whose_service_went_away_lets_the_event_pass(tmp_path: Path) -> None:
    hook = NoteHook()
    with serving(hook) as endpoint:
        coordinator, cleanup = await mounted("hooks-gone", grpc_module(tmp_path / "h", endpoint, "hook"))
    result = await coordinator.hooks.emit("prompt:submit", {"prompt": "hi"})  # the server has stopped
    await cleanup()
    assert result.action == "continue"


async def test_a_stream_that_breaks_after_text_is_a_stream_error_with_the_abort_event(tmp_path: Path) -> None:
    import grpc

    from amplifier_core import llm_errors

    service = ScriptedProvider([Turn(text="partial answer")], fail_with=grpc.StatusCode.UNAVAILABLE)
    with serving(service) as endpoint:
        coordinator, cleanup = await mounted("provider-cut", grpc_module(tmp_path / "p", endpoint, "provider"))
        aborted: list[dict[str, Any]] = []

        async def record(event: str, data: dict[str, Any]) -> Any:
            aborted.append(data)

        coordinator.hooks.register("llm:stream_aborted", record)
        request = ChatRequest(messages=[Message(role="user", content="hi")], stream=True)
        with pytest.raises(llm_errors.StreamError, match="the stream broke: the connection dropped"):
            await coordinator.get("providers")["polyglot"].complete(request)
        await cleanup()
    assert aborted[0]["provider"] == "polyglot" and "the connection dropped" in aborted[0]["error"]
