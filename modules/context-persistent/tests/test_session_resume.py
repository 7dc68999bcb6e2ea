"""context-persistent in a real AmplifierSession: a second session on the same file resumes its history."""

from __future__ import annotations

import json
import textwrap

import pytest

from amplifier_core.session import AmplifierSession

SCRIPTED = '''
from __future__ import annotations

from amplifier_core.testing import MockProvider, ScriptedOrchestrator

__amplifier_module_type__ = "orchestrator"


async def mount(coordinator, config):
    await coordinator.mount("orchestrator", ScriptedOrchestrator(config.get("responses", [])))
    await coordinator.mount("providers", MockProvider(), name="mock")
'''


@pytest.fixture
def scripted_loop(tmp_path, monkeypatch) -> None:
    package = tmp_path / "fake_modules" / "amplifier_module_test_scripted_loop"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(SCRIPTED), encoding="utf-8")
    monkeypatch.syspath_prepend(str(package.parent))


def plan(path, responses: list[str]) -> dict:
    return {
        "session": {
            "orchestrator": {"module": "test-scripted-loop", "config": {"responses": responses}},
            "context": {"module": "context-persistent", "config": {"path": str(path)}},
        },
    }


async def test_second_session_on_the_same_file_resumes_the_first_sessions_history(tmp_path, scripted_loop):
    path = tmp_path / "sessions" / "ctx.jsonl"
    async with AmplifierSession(plan(path, ["first answer"])) as first:
        await first.execute("first question")
    assert [json.loads(line)["content"] for line in path.read_text("utf-8").splitlines()] == [
        "first question", "first answer"]

    async with AmplifierSession(plan(path, ["second answer"]), is_resumed=True) as second:
        context = second.coordinator.get("context")
        assert [message["content"] for message in await context.get_messages()] == [
            "first question", "first answer"]
        await second.execute("second question")
        assert len(await context.get_messages()) == 4
    assert len(path.read_text("utf-8").splitlines()) == 4
