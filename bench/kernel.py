"""Kernel micro-benchmarks: session lifecycle, execute() overhead per turn, and hook emit cost.

Run: ``python bench/kernel.py [--quick]``. Prints medians over many repetitions. Everything is in-process
and in-memory (tiny orchestrator/context/provider/tool modules written to a temp dir and served by a
module-source resolver, as the CLI does); no network, no real LLM.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from amplifier_core import AmplifierSession, HookRegistry, HookResult
from amplifier_core.module_sources import ModuleNotFoundError as SourceNotFoundError
from amplifier_core.module_sources import ModuleSource

# The module package writer (and the in-memory context) shared with the kernel tests live in tests/support.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
from testkit.module_packages import IN_MEMORY_CONTEXT, module_package_name, write_module_package

# A minimal but honest agent loop: builds a ChatRequest from the context each step, emits the standard
# events, runs requested tools with tool:pre/tool:post, and stops when the provider answers without tools.
LOOP = '''
from amplifier_core import ChatRequest, ToolSpec
from amplifier_core.message_models import response_text

class Loop:
    async def execute(self, prompt, context, providers, tools, hooks, coordinator=None, **kwargs):
        await hooks.emit("prompt:submit", {"prompt": prompt})
        await context.add_message({"role": "user", "content": prompt})
        provider = next(iter(providers.values()))
        specs = [ToolSpec(name=t.name, parameters={"type": "object"}, description=t.description)
                 for t in tools.values()]
        while True:
            messages = await context.get_messages_for_request(provider=provider)
            request = ChatRequest(messages=messages, tools=specs or None)
            await hooks.emit("provider:request", {"provider": provider.name})
            response = await provider.complete(request)
            await hooks.emit("provider:response", {"provider": provider.name})
            calls = provider.parse_tool_calls(response)
            blocks = [block.model_dump(exclude_none=True) for block in response.content]
            if not calls:
                await context.add_message({"role": "assistant", "content": blocks})
                await hooks.emit("orchestrator:complete", {"orchestrator": "bench", "turn_count": 1,
                                                           "status": "success"})
                return response_text(response)
            await context.add_message({"role": "assistant", "content": blocks, "tool_calls": [
                {"id": c.id, "tool": c.name, "arguments": c.arguments} for c in calls]})
            for call in calls:
                pre = await hooks.emit("tool:pre", {"tool_name": call.name, "tool_input": call.arguments})
                if pre.action == "deny":
                    continue
                result = await tools[call.name].execute(call.arguments)
                await hooks.emit("tool:post", {"tool_name": call.name, "tool_input": call.arguments,
                                               "tool_result": result.model_dump()})
                await context.add_message({"role": "tool", "tool_call_id": call.id, "name": call.name,
                                           "content": result.get_serialized_output()})

async def mount(coordinator, config):
    await coordinator.mount("orchestrator", Loop())
'''

# Answers instantly. With ``tool_every_turn`` it first asks for one tool call, then answers after the result.
PROVIDER = '''
from amplifier_core import ChatResponse, ProviderInfo, TextBlock, ToolCall, ToolCallBlock, Usage

class Instant:
    name = "instant"
    def __init__(self, use_tool):
        self.use_tool = use_tool
        self.counter = 0
    def get_info(self):
        return ProviderInfo(id="instant", display_name="Instant")
    async def list_models(self):
        return []
    async def complete(self, request, **kwargs):
        usage = Usage(input_tokens=1, output_tokens=1, total_tokens=2)
        if self.use_tool and request.messages[-1].role == "user":
            self.counter += 1
            call = ToolCall(id=f"c{self.counter}", name="noop", arguments={"n": self.counter})
            return ChatResponse(content=[ToolCallBlock(id=call.id, name=call.name, input=call.arguments)],
                                tool_calls=[call], usage=usage)
        return ChatResponse(content=[TextBlock(text="done")], usage=usage)
    def parse_tool_calls(self, response):
        return response.tool_calls or []

async def mount(coordinator, config):
    await coordinator.mount("providers", Instant(config.get("tool_every_turn", False)))
'''

TOOL = '''
from amplifier_core import ToolResult

class Noop:
    name = "noop"
    description = "does nothing"
    input_schema = {"type": "object", "properties": {}}
    async def execute(self, input):
        return ToolResult(output={"ok": True})

async def mount(coordinator, config):
    await coordinator.mount("tools", Noop())
'''

MODULES = {"loop-bench": LOOP, "context-bench": IN_MEMORY_CONTEXT, "provider-bench": PROVIDER, "tool-bench": TOOL}


class _Source(ModuleSource):
    def __init__(self, path: Path) -> None:
        self.path = path

    def resolve(self) -> Path:
        return self.path


class BenchResolver:
    """Serves the benchmark modules from a temp dir; anything else is 'not found'."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def resolve(self, module_id: str, source_hint: Any = None, profile_hint: Any = None) -> ModuleSource:
        if module_id not in MODULES:
            raise SourceNotFoundError(module_id)
        return _Source(self.root / module_id)


def write_modules(root: Path) -> None:
    for module_id, source in MODULES.items():
        write_module_package(root / module_id, module_package_name(module_id), source)


def plan(tools: bool) -> dict[str, Any]:
    return {
        "session": {"orchestrator": "loop-bench", "context": "context-bench"},
        "providers": [{"module": "provider-bench", "config": {"tool_every_turn": tools}}],
        "tools": [{"module": "tool-bench"}] if tools else [],
    }


def new_session(resolver: BenchResolver, tools: bool) -> AmplifierSession:
    session = AmplifierSession(plan(tools))
    session.coordinator.mount_points["module-source-resolver"] = resolver
    return session


async def median_seconds(operation: Callable[[], Awaitable[Any]], repeats: int, batch: int) -> float:
    """Median over ``repeats`` samples of the mean time of ``batch`` back-to-back calls."""
    for _ in range(max(1, batch // 10)):
        await operation()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(batch):
            await operation()
        samples.append((time.perf_counter() - start) / batch)
    return statistics.median(samples)


async def bench_session_lifecycle(resolver: BenchResolver, repeats: int) -> float:
    async def lifecycle() -> None:
        session = new_session(resolver, tools=True)
        await session.initialize()
        await session.cleanup()

    return await median_seconds(lifecycle, repeats, batch=10)


async def bench_session_lifecycle_direct(root: Path, repeats: int) -> float:
    """Same lifecycle without a resolver: modules found by entry point lookup, then by import name."""
    paths = [str(root / module_id) for module_id in MODULES]
    sys.path[:0] = paths

    async def lifecycle() -> None:
        session = AmplifierSession(plan(tools=True))
        await session.initialize()
        await session.cleanup()

    try:
        return await median_seconds(lifecycle, repeats, batch=10)
    finally:
        del sys.path[: len(paths)]


async def bench_execute(resolver: BenchResolver, tools: bool, repeats: int) -> float:
    session = new_session(resolver, tools=tools)
    await session.initialize()
    context = session.coordinator.get("context")

    async def turn() -> None:
        await session.execute("hello")
        context.messages.clear()  # keep every turn the same size

    try:
        return await median_seconds(turn, repeats, batch=50)
    finally:
        await session.cleanup()


def growing_plan(tools: bool, max_tokens: int | None = None) -> dict[str, Any]:
    """The bundled loop-basic and context-simple (found by entry point) with the instant provider; with
    ``max_tokens`` the context compacts once the history outgrows it."""
    context: dict[str, Any] = {"module": "context-simple"}
    if max_tokens is not None:
        context["config"] = {"max_tokens": max_tokens}
    return {
        "session": {"orchestrator": "loop-basic", "context": context},
        "providers": [{"module": "provider-bench", "config": {"tool_every_turn": tools}}],
        "tools": [{"module": "tool-bench"}] if tools else [],
    }


async def bench_growing_history(root: Path, tools: bool, turns: int, max_tokens: int | None = None
                                ) -> tuple[float, float]:
    """Mean seconds per turn of the first 100 and the last 100 of ``turns`` turns in one session whose history
    keeps growing (2 messages per text turn, 4 per tool turn): the cost of a long conversation. Measured in
    this process's CPU time: the two windows are seconds apart, and wall time would compare whatever else the
    shared machine was doing then."""
    paths = [str(root / module_id) for module_id in MODULES]
    sys.path[:0] = paths
    session = AmplifierSession(growing_plan(tools, max_tokens))
    try:
        await session.initialize()
        durations = []
        for _ in range(turns):
            start = time.process_time()
            await session.execute("hello")
            durations.append(time.process_time() - start)
        window = min(100, turns // 2)
        return statistics.fmean(durations[:window]), statistics.fmean(durations[-window:])
    finally:
        await session.cleanup()
        del sys.path[: len(paths)]


async def growing_rows(root: Path, quick: bool) -> list[tuple[str, float]]:
    """Medians over several sessions of 1000 turns (one with --quick) of the first/last 100-turn means."""
    sessions = 1 if quick else 5
    rows = []
    for tools, max_tokens, label in ((False, None, "text turn"), (True, None, "turn with one tool call"),
                                     (True, 4000, "tool turn, compacting at 4k tokens")):
        firsts, lasts = [], []
        for _ in range(sessions):
            first, last = await bench_growing_history(root, tools, 1000, max_tokens)
            firsts.append(first)
            lasts.append(last)
        first, last = statistics.median(firsts), statistics.median(lasts)
        rows.append((f"1000 turns, {label}: first 100", first))
        rows.append((f"  last 100 (x{last / first:.2f})", last))
    return rows


async def bench_emit(handlers: int, repeats: int) -> float:
    hooks = HookRegistry()
    hooks.set_default_fields(session_id="bench", parent_id=None)
    continue_result = HookResult()

    async def trivial(event: str, data: dict[str, Any]) -> HookResult:
        return continue_result

    for index in range(handlers):
        hooks.register("tool:pre", trivial, priority=index, name=f"h{index}")
    payload = {"tool_name": "noop", "tool_input": {"n": 1}}

    async def emit() -> None:
        await hooks.emit("tool:pre", payload)

    return await median_seconds(emit, repeats, batch=1000)


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    return f"{cpu}, nproc={os.cpu_count()}, Python {platform.python_version()} ({sys.platform})"


def fmt(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:8.2f} ms"
    return f"{seconds * 1e6:8.1f} µs"


async def main(quick: bool) -> None:
    repeats = 7 if quick else 31
    with tempfile.TemporaryDirectory(prefix="amplifier-bench-") as tmp:
        root = Path(tmp)
        write_modules(root)
        resolver = BenchResolver(root)
        rows = [
            ("session create + initialize + cleanup (4 modules)", await bench_session_lifecycle(resolver, repeats)),
            ("  same, modules found without a resolver", await bench_session_lifecycle_direct(root, repeats)),
            ("execute() per turn, no tools", await bench_execute(resolver, False, repeats)),
            ("execute() per turn, one tool call", await bench_execute(resolver, True, repeats)),
            ("HookRegistry.emit, 1 handler", await bench_emit(1, repeats)),
            ("HookRegistry.emit, 10 handlers", await bench_emit(10, repeats)),
            *await growing_rows(root, quick),
        ]
    print(f"machine: {machine()}")
    print(f"{'benchmark':<52} {'median':>11}")
    print("-" * 64)
    for label, seconds in rows:
        print(f"{label:<52} {fmt(seconds):>11}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (for a smoke run)")
    asyncio.run(main(parser.parse_args().quick))
