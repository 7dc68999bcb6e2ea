"""loop-basic mounted by a real AmplifierSession, with provider-scripted and an in-test tool, and the
kernel's orchestrator validator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from loop_basic_doubles import EchoTool, InTestContextLoader, session_plan

from amplifier_core import AmplifierSession
from amplifier_core.llm_errors import RateLimitError
from amplifier_core.testing import MockContextManager
from amplifier_core.validation import OrchestratorValidator

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "amplifier_module_loop_basic"


def record(session: AmplifierSession, *names: str) -> list[str]:
    seen: list[str] = []

    async def capture(event: str, data: dict[str, Any]) -> None:
        seen.append(event)

    for name in names:
        session.coordinator.hooks.register(name, capture, name="test-recorder")
    return seen


async def test_session_runs_a_scripted_tool_turn_through_loop_basic() -> None:
    context = MockContextManager()
    script = [{"tool_calls": [{"name": "echo", "arguments": {"value": "hi"}, "id": "t1"}]},
              {"text": "echoed", "match": "echo:hi"}]
    session = AmplifierSession(session_plan("loop-basic", script), loader=InTestContextLoader(context))
    async with session:
        await session.coordinator.mount("tools", EchoTool())
        seen = record(session, "tool:pre", "tool:post", "orchestrator:complete", "session:start")
        assert await session.execute("say hi") == "echoed"
    assert seen == ["session:start", "tool:pre", "tool:post", "orchestrator:complete"]
    assert [m["role"] for m in context.messages] == ["user", "assistant", "tool", "assistant"]
    assert context.messages[2]["content"] == "echo:hi" and session.status.status == "completed"


async def test_session_reports_provider_errors_as_failed_status() -> None:
    script = [{"error": {"type": "RateLimitError", "message": "try later"}}]
    session = AmplifierSession(session_plan("loop-basic", script), loader=InTestContextLoader(MockContextManager()))
    async with session:
        with pytest.raises(RateLimitError, match="try later"):
            await session.execute("q")
    assert session.status.status == "failed"


async def test_session_cancelled_before_the_turn_records_cancelled_status() -> None:
    session = AmplifierSession(session_plan("loop-basic", ["unused"]),
                               loader=InTestContextLoader(MockContextManager()))
    async with session:
        seen = record(session, "cancel:completed")
        await session.coordinator.request_cancel()
        assert await session.execute("q") == ""
    assert session.status.status == "cancelled" and seen == ["cancel:completed"]


async def test_loop_basic_passes_the_orchestrator_validator() -> None:
    result = await OrchestratorValidator().validate(PACKAGE_DIR)
    assert result.passed, [check for check in result.checks if not check.passed]
