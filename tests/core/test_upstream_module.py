"""Compatibility proof: a module written the way upstream amplifier modules are (own distribution with an
``amplifier.modules`` entry point, imports only from ``amplifier_core``'s top level) is discovered through
its entry point, mounted by ``AmplifierSession`` and called by the LLM in a real turn."""

from __future__ import annotations

import sys
import tomllib
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from amplifier_core import (
    AmplifierSession,
    ChatRequest,
    ChatResponse,
    HookResult,
    Message,
    ModuleLoader,
    ProviderInfo,
    TextBlock,
    ToolCall,
    ToolCallBlock,
)
from amplifier_core.message_models import response_text

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "upstream_style_module"
PACKAGE = "amplifier_module_tool_upstream_echo"


@pytest.fixture
def upstream_module_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Register the fixture's entry point as an installed distribution would: a .dist-info on sys.path."""
    project = tomllib.loads((FIXTURE / "pyproject.toml").read_text())["project"]
    entry_points = project["entry-points"]["amplifier.modules"]
    (module_id, target), = entry_points.items()
    dist_info = tmp_path / "site" / f"{PACKAGE}-{project['version']}.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    (dist_info / "entry_points.txt").write_text(f"[amplifier.modules]\n{module_id} = {target}\n")
    monkeypatch.syspath_prepend(str(FIXTURE))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    yield module_id
    for name in [key for key in sys.modules if key == PACKAGE or key.startswith(PACKAGE + ".")]:
        del sys.modules[name]


# -- the rest of the session, defined here (registered as importable modules for the loader) ---------------
class ListContext:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def add_message(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    async def get_messages_for_request(self, token_budget: int | None = None, provider: Any = None) -> list[dict]:
        return list(self.messages)

    async def get_messages(self) -> list[dict[str, Any]]:
        return list(self.messages)

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        self.messages = list(messages)

    async def clear(self) -> None:
        self.messages = []


class ToolCallingProvider:
    """First asks for ``upstream_echo``; then answers with what the tool returned."""

    name = "scripted"

    def __init__(self) -> None:
        self.requests: list[ChatRequest] = []

    def get_info(self) -> ProviderInfo:
        return ProviderInfo(id="scripted", display_name="Scripted")

    async def list_models(self) -> list:
        return []

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        self.requests.append(request)
        tool_messages = [message for message in request.messages if message.role == "tool"]
        if not tool_messages:
            call = ToolCall(id="call-1", name="upstream_echo", arguments={"text": "hello"})
            return ChatResponse(content=[ToolCallBlock(id=call.id, name=call.name, input=call.arguments)],
                                tool_calls=[call])
        return ChatResponse(content=[TextBlock(text=f"The tool said: {tool_messages[-1].content}")])

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        return list(response.tool_calls or [])


class MinimalLoop:
    """The smallest agent loop: ask the provider, run requested tools, repeat until it answers in text."""

    async def execute(self, prompt: str, context: Any, providers: dict, tools: dict, hooks: Any,
                      **kwargs: Any) -> str:
        provider = next(iter(providers.values()))
        await context.add_message({"role": "user", "content": prompt})
        for _ in range(5):
            messages = [Message(**message) for message in await context.get_messages_for_request()]
            response = await provider.complete(ChatRequest(messages=messages))
            calls = provider.parse_tool_calls(response)
            if not calls:
                await context.add_message({"role": "assistant", "content": response_text(response)})
                return response_text(response)
            await context.add_message({"role": "assistant", "content": [
                {"type": "tool_call", "id": call.id, "name": call.name, "input": call.arguments} for call in calls]})
            for call in calls:
                await hooks.emit("tool:pre", {"tool_name": call.name, "tool_input": call.arguments})
                result = await tools[call.name].execute(call.arguments)
                await hooks.emit("tool:post", {"tool_name": call.name, "result": result.model_dump()})
                await context.add_message(
                    {"role": "tool", "tool_call_id": call.id, "content": result.get_serialized_output()})
        raise RuntimeError("too many iterations")


@pytest.fixture
def test_modules(monkeypatch: pytest.MonkeyPatch) -> ToolCallingProvider:
    provider = ToolCallingProvider()

    async def mount_loop(coordinator: Any, config: dict) -> None:
        await coordinator.mount("orchestrator", MinimalLoop())

    async def mount_context(coordinator: Any, config: dict) -> None:
        await coordinator.mount("context", ListContext())

    async def mount_provider(coordinator: Any, config: dict) -> None:
        await coordinator.mount("providers", provider)

    for module_id, mount in (("loop-compat-test", mount_loop), ("context-compat-test", mount_context),
                             ("provider-compat-test", mount_provider)):
        module = types.ModuleType("amplifier_module_" + module_id.replace("-", "_"))
        module.mount = mount  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, module.__name__, module)
    return provider


def plan(tool_id: str) -> dict[str, Any]:
    return {
        "session": {"orchestrator": "loop-compat-test", "context": "context-compat-test"},
        "providers": [{"module": "provider-compat-test"}],
        "tools": [{"module": tool_id, "config": {"prefix": "echo: "}}],
    }


async def test_upstream_style_module_is_discovered_through_its_entry_point(upstream_module_installed: str) -> None:
    infos = {info.id: info for info in await ModuleLoader().discover()}
    assert infos[upstream_module_installed].type == "tool"
    assert infos[upstream_module_installed].mount_point == "tools"


async def test_upstream_style_tool_mounts_in_session_and_runs_a_turn(
    upstream_module_installed: str, test_modules: ToolCallingProvider
) -> None:
    session = AmplifierSession(plan(upstream_module_installed))
    echoed: list[dict[str, Any]] = []

    async def on_echo(event: str, data: dict[str, Any]) -> HookResult:
        echoed.append(data)
        return HookResult()

    async with session:
        assert session.failed_modules == []
        tool = session.coordinator.get("tools", "upstream_echo")
        assert type(tool).__module__ == PACKAGE
        assert Path(sys.modules[PACKAGE].__file__).parent == FIXTURE / PACKAGE
        session.coordinator.hooks.register("upstream_echo:echoed", on_echo)

        answer = await session.execute("Please echo hello")

        assert answer == "The tool said: echo: hello"
        assert session.status.status == "completed"
        assert len(test_modules.requests) == 2
        tool_message = test_modules.requests[1].messages[-1]
        assert tool_message.role == "tool" and tool_message.content == "echo: hello"
        assert [data["text"] for data in echoed] == ["hello"]
        assert echoed[0]["session_id"] == session.session_id
        contributions = await session.coordinator.collect_contributions("observability.events")
        assert contributions == [["upstream_echo:echoed"]]


async def test_upstream_style_tool_reports_bad_input_as_failed_result(upstream_module_installed: str,
                                                                    test_modules: ToolCallingProvider) -> None:
    async with AmplifierSession(plan(upstream_module_installed)) as session:
        result = await session.coordinator.get("tools", "upstream_echo").execute({})
    assert not result.success
    assert result.get_serialized_output() == "'text' (a string) is required"
