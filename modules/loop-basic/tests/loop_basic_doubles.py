"""Test doubles for the loop (also used by loop-streaming's tests): a provider answering from a list, tools
with controllable timing, and a harness that runs AgentLoop on a real coordinator and records every event."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from amplifier_module_loop_basic import AgentLoop, LoopConfig

from amplifier_core import events
from amplifier_core.loader import ModuleLoader
from amplifier_core.message_models import ChatRequest, ChatResponse, TextBlock, ThinkingBlock, ToolCall, Usage
from amplifier_core.models import ToolResult
from amplifier_core.testing import MockApprovalSystem, MockContextManager, MockCoordinator


def say(text: str, *, thinking: str | None = None, usage: tuple[int, int] | None = None) -> ChatResponse:
    content: list[Any] = [ThinkingBlock(thinking=thinking, signature="sig-1")] if thinking else []
    content.append(TextBlock(text=text))
    return ChatResponse(content=content, usage=Usage(input_tokens=usage[0], output_tokens=usage[1],
                                                     total_tokens=sum(usage)) if usage else None)


def call(*calls: tuple[str, dict[str, Any], str], text: str | None = None) -> ChatResponse:
    """A response calling tools; each call is (name, arguments, id)."""
    content: list[Any] = [TextBlock(text=text)] if text else []
    content += [{"type": "tool_call", "id": cid, "name": name, "input": args} for name, args, cid in calls]
    return ChatResponse(content=content, tool_calls=[ToolCall(id=cid, name=name, arguments=args)
                                                     for name, args, cid in calls])


class FakeProvider:
    """Answers each request with the next item: a ChatResponse, an exception to raise, or an async callable
    taking the request."""

    def __init__(self, *answers: Any, name: str = "fake", priority: int | None = None) -> None:
        self.name = name
        self.answers = list(answers)
        self.requests: list[ChatRequest] = []
        self.kwargs: list[dict[str, Any]] = []
        if priority is not None:
            self.priority = priority

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        self.requests.append(request)
        self.kwargs.append(kwargs)
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            return await answer(request)
        return answer

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        return list(response.tool_calls or [])


class EchoTool:
    def __init__(self, name: str = "echo") -> None:
        self.name = name
        self.description = f"{name} tool"
        self.input_schema = {"type": "object", "properties": {"value": {"type": "string"}}}
        self.inputs: list[dict[str, Any]] = []

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        self.inputs.append(input)
        return ToolResult(output=f"{self.name}:{input.get('value')}")


class GatedTool(EchoTool):
    """Signals ``started`` and then waits for ``release`` before answering."""

    def __init__(self, name: str = "gated") -> None:
        super().__init__(name)
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = False

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return await super().execute(input)


class BoomTool(EchoTool):
    async def execute(self, input: dict[str, Any]) -> ToolResult:
        raise RuntimeError("disk on fire")


@dataclass
class Harness:
    coordinator: MockCoordinator
    context: MockContextManager
    seen: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def names(self, prefix: str = "") -> list[str]:
        return [name for name, _ in self.seen if name.startswith(prefix)]

    def data(self, event: str) -> list[dict[str, Any]]:
        return [data for name, data in self.seen if name == event]

    def on(self, event: str, handler: Callable[..., Any], priority: int = 0) -> None:
        self.coordinator.hooks.register(event, handler, priority=priority, name=f"test-{event}")

    async def run(self, prompt: str, provider: Any, tools: list[Any] | None = None, *,
                  loop: AgentLoop | None = None, **config: Any) -> str:
        loop = loop or AgentLoop(LoopConfig(**config))
        providers = provider if isinstance(provider, dict) else {provider.name: provider}
        return await loop.execute(prompt, context=self.context, providers=providers,
                                  tools={tool.name: tool for tool in tools or []},
                                  hooks=self.coordinator.hooks, coordinator=self.coordinator)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.context.messages



def make_harness() -> Harness:
    coordinator = MockCoordinator(approval_system=MockApprovalSystem("Allow"))
    context = MockContextManager()
    coordinator.mount_points["context"] = context
    result = Harness(coordinator, context)

    async def record(event: str, data: dict[str, Any]) -> None:
        result.seen.append((event, dict(data)))

    for name in events.ALL_EVENTS:
        coordinator.hooks.register(name, record, priority=-1000, name="recorder")
    return result


class InTestContextLoader(ModuleLoader):
    """The real loader, except that ``test-context`` mounts ``context`` (the bundled context managers are
    tested on their own)."""

    def __init__(self, context: Any) -> None:
        super().__init__()
        self.context = context

    async def load(self, module_id: str, config: dict[str, Any] | None = None, source_hint: Any = None,
                   coordinator: Any = None) -> Any:
        if module_id != "test-context":
            return await super().load(module_id, config, source_hint=source_hint, coordinator=coordinator)

        async def mount_context(target: Any = None) -> None:
            await (target or coordinator).mount("context", self.context)
        return mount_context


def session_plan(orchestrator: str, script: list[Any], tools: list[str] = (), **loop_config: Any) -> dict[str, Any]:
    return {
        "session": {"orchestrator": {"module": orchestrator, "config": loop_config}, "context": "test-context"},
        "providers": [{"module": "provider-scripted", "config": {"script": script}}],
        "tools": [{"module": tool} for tool in tools],
    }
