"""gRPC module services served in-process on 127.0.0.1 (a thread pool; the session under test runs elsewhere).

``EchoTool`` answers with its arguments; ``ScriptedProvider`` answers each Complete with the next scripted turn
(streamed piece by piece on CompleteStreaming) and remembers the requests; ``NoteHook`` injects a note on
``prompt:submit`` and records what it saw; ``ListContext`` keeps messages in a list; ``AnthropicForwarder`` is
a provider that answers by calling the (fake) Anthropic API with the real SDK."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc

from amplifier_core._grpc_gen import amplifier_module_pb2 as pb
from amplifier_core._grpc_gen import amplifier_module_pb2_grpc as services


class EchoTool(services.ToolServiceServicer):
    def __init__(self, name: str = "grpc_echo") -> None:
        self.name = name
        self.calls: list[dict[str, Any]] = []
        self.spec_requests = 0

    def GetSpec(self, request: Any, context: Any) -> Any:
        self.spec_requests += 1
        schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
        return pb.ToolSpec(name=self.name, description="Echo the text back (a gRPC tool)",
                           parameters_json=json.dumps(schema))

    def Execute(self, request: Any, context: Any) -> Any:
        arguments = json.loads(request.input)
        self.calls.append(arguments)
        if arguments.get("text") == "fail":
            return pb.ToolExecuteResponse(success=False, error="asked to fail")
        output = json.dumps({"echoed": arguments.get("text")}).encode()
        return pb.ToolExecuteResponse(success=True, output=output, content_type="application/json")


@dataclass
class Turn:
    text: str = ""
    tool_calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # (id, name, arguments)


class ScriptedProvider(services.ProviderServiceServicer):
    def __init__(self, turns: list[Turn], name: str = "polyglot", fail_with: Any = None) -> None:
        self.turns = list(turns)
        self.name = name
        self.requests: list[Any] = []
        self.fail_with = fail_with  # a grpc.StatusCode every completion is aborted with

    def GetInfo(self, request: Any, context: Any) -> Any:
        return pb.ProviderInfo(id=self.name, display_name="Polyglot (gRPC)", capabilities=["tools", "streaming"],
                               defaults_json=json.dumps({"model": "poly-1"}))

    def ListModels(self, request: Any, context: Any) -> Any:
        return pb.ListModelsResponse(models=[pb.ModelInfo(id="poly-1", display_name="Poly 1",
                                                          context_window=8000, max_output_tokens=1000)])

    def _answer(self, request: Any) -> Any:
        self.requests.append(request)
        turn = self.turns.pop(0) if self.turns else Turn(text="(script exhausted)")
        calls = [pb.ToolCallMessage(id=call_id, name=name, arguments_json=json.dumps(arguments))
                 for call_id, name, arguments in turn.tool_calls]
        return turn, calls

    def Complete(self, request: Any, context: Any) -> Any:
        if self.fail_with is not None:
            context.abort(self.fail_with, "the model is busy")
        turn, calls = self._answer(request)
        return pb.ChatResponse(content=turn.text, tool_calls=calls, finish_reason="tool_use" if calls else "stop",
                               usage=pb.Usage(prompt_tokens=10, completion_tokens=5, total_tokens=15))

    def CompleteStreaming(self, request: Any, context: Any) -> Iterator[Any]:
        turn, calls = self._answer(request)
        words = turn.text.split(" ")
        for index, word in enumerate(words):
            if word or index:
                yield pb.ChatResponse(content=word if index == 0 else " " + word)
            if self.fail_with is not None:  # break the stream after its first piece
                context.abort(self.fail_with, "the connection dropped")
        yield pb.ChatResponse(tool_calls=calls, finish_reason="tool_use" if calls else "stop",
                              usage=pb.Usage(prompt_tokens=10, completion_tokens=5, total_tokens=15))


class NoteHook(services.HookServiceServicer):
    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self.config: dict[str, Any] = {}

    def GetSubscriptions(self, request: Any, context: Any) -> Any:
        self.config = json.loads(request.config_json or "{}")
        return pb.GetSubscriptionsResponse(subscriptions=[pb.EventSubscription(event="prompt:submit", priority=5,
                                                                               name="note-hook")])

    def Handle(self, request: Any, context: Any) -> Any:
        self.seen.append((request.event, json.loads(request.data_json or "{}")))
        note = self.config.get("note", "a note from the gRPC hook")
        return pb.HookResult(action=pb.HOOK_ACTION_INJECT_CONTEXT, context_injection=note,
                             context_injection_role=pb.CONTEXT_INJECTION_ROLE_USER)


class ListContext(services.ContextServiceServicer):
    def __init__(self) -> None:
        self.messages: list[Any] = []

    def AddMessage(self, request: Any, context: Any) -> Any:
        self.messages.append(request.message)
        return pb.Empty()

    def GetMessages(self, request: Any, context: Any) -> Any:
        return pb.GetMessagesResponse(messages=self.messages)

    def GetMessagesForRequest(self, request: Any, context: Any) -> Any:
        return pb.GetMessagesResponse(messages=self.messages)

    def SetMessages(self, request: Any, context: Any) -> Any:
        self.messages = list(request.messages)
        return pb.Empty()

    def Clear(self, request: Any, context: Any) -> Any:
        self.messages = []
        return pb.Empty()


_ADDERS: dict[type, Any] = {
    EchoTool: services.add_ToolServiceServicer_to_server,
    ScriptedProvider: services.add_ProviderServiceServicer_to_server,
    NoteHook: services.add_HookServiceServicer_to_server,
    ListContext: services.add_ContextServiceServicer_to_server,
}


@contextmanager
def serving(*servicers: Any) -> Iterator[str]:
    """Serve the servicers on one loopback port; yields the endpoint ("127.0.0.1:PORT")."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    for servicer in servicers:
        adder = _ADDERS.get(type(servicer), services.add_ProviderServiceServicer_to_server)  # AnthropicForwarder
        adder(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(None).wait()


class AnthropicForwarder(services.ProviderServiceServicer):
    """A provider module as someone would write one in another language: it answers the module proto by calling
    an LLM API, here the loopback fake API through the real anthropic SDK (text turns; streamed piece by piece
    when asked)."""

    def __init__(self, base_url: str, api_key: str, name: str = "forwarder") -> None:
        import anthropic

        self.client = anthropic.Anthropic(base_url=base_url, api_key=api_key, max_retries=0)
        self.name = name
        self.streamed: list[bool] = []

    def GetInfo(self, request: Any, context: Any) -> Any:
        return pb.ProviderInfo(id=self.name, display_name="Forwarder (gRPC -> Anthropic API)")

    def ListModels(self, request: Any, context: Any) -> Any:
        return pb.ListModelsResponse(models=[pb.ModelInfo(id="claude-fake", display_name="Fake")])

    def _arguments(self, request: Any) -> dict[str, Any]:
        system = "\n".join(m.text_content for m in request.messages if m.role == pb.ROLE_SYSTEM)
        messages = [{"role": "assistant" if m.role == pb.ROLE_ASSISTANT else "user",
                     "content": m.text_content or "(blocks)"}
                    for m in request.messages if m.role in (pb.ROLE_USER, pb.ROLE_ASSISTANT)]
        arguments: dict[str, Any] = {"model": request.model or "claude-fake", "max_tokens": 256,
                                     "messages": messages}
        if system:
            arguments["system"] = system
        return arguments

    def Complete(self, request: Any, context: Any) -> Any:
        self.streamed.append(False)
        message = self.client.messages.create(**self._arguments(request))
        text = "".join(block.text for block in message.content if block.type == "text")
        return pb.ChatResponse(content=text, finish_reason=message.stop_reason or "end_turn",
                               usage=pb.Usage(prompt_tokens=message.usage.input_tokens,
                                              completion_tokens=message.usage.output_tokens))

    def CompleteStreaming(self, request: Any, context: Any) -> Iterator[Any]:
        self.streamed.append(True)
        with self.client.messages.stream(**self._arguments(request)) as stream:
            for piece in stream.text_stream:
                yield pb.ChatResponse(content=piece)
            final = stream.get_final_message()
        yield pb.ChatResponse(finish_reason=final.stop_reason or "end_turn",
                              usage=pb.Usage(prompt_tokens=final.usage.input_tokens,
                                             completion_tokens=final.usage.output_tokens))
