"""hooks-logging and hooks-redaction mounted together in a real AmplifierSession: secrets never reach disk."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from amplifier_core.session import AmplifierSession

FAKE_KEY = "fake-openai-key-0123456789abcdefXYZ"
ANTHROPIC_LOOKALIKE = "sk-ant-api03-" + "Q" * 40

LOOP = '''
from __future__ import annotations

from amplifier_core.message_models import ChatRequest, Message

__amplifier_module_type__ = "orchestrator"


class Loop:
    async def execute(self, prompt, context, providers, tools, hooks, **kwargs):
        await hooks.emit("prompt:submit", {"prompt": prompt})
        await context.add_message({"role": "user", "content": prompt})
        provider = next(iter(providers.values()))
        messages = await context.get_messages_for_request(provider=provider)
        await hooks.emit("llm:request", {"provider": provider.name, "messages": messages})
        request = ChatRequest(messages=[Message.model_validate(m) for m in messages])
        response = await provider.complete(request)
        text = response.content[0].text
        await hooks.emit("content_block:delta", {"block_index": 0, "delta": text})
        await hooks.emit("llm:response", {"provider": provider.name, "response": response})
        command = "curl -H 'Authorization: Bearer " + text + "'"
        pre = await hooks.emit("tool:pre", {"tool_name": "bash", "tool_input": {"command": command}})
        would_run = pre.data["tool_input"]["command"]  # like loop-basic, run what the hooks hand back
        await hooks.emit("demo:custom", {"note": text})
        await context.add_message({"role": "assistant", "content": [{"type": "text", "text": text}]})
        await context.add_message({"role": "tool", "tool_call_id": "c1", "content": would_run})
        await hooks.emit("prompt:complete", {"response": text})
        return text


async def mount(coordinator, config):
    coordinator.register_contributor("observability.events", "test-e2e-loop", lambda: ["demo:custom"])
    await coordinator.mount("orchestrator", Loop())
'''

PROVIDER = '''
from __future__ import annotations

import os

from amplifier_core.message_models import ChatResponse, TextBlock
from amplifier_core.models import ProviderInfo

__amplifier_module_type__ = "provider"


class EchoKeyProvider:
    name = "echo-key"

    def get_info(self):
        return ProviderInfo(id="echo-key", display_name="Echo key")

    async def list_models(self):
        return []

    async def complete(self, request, **kwargs):
        leaked = os.environ["OPENAI_API_KEY"] + " and " + os.environ["LOOKALIKE"]
        return ChatResponse(content=[TextBlock(text="your keys: " + leaked)])

    def parse_tool_calls(self, response):
        return []


async def mount(coordinator, config):
    await coordinator.mount("providers", EchoKeyProvider(), name="echo-key")
'''


@pytest.fixture
def fake_modules(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "fake_modules"
    for package, source in (("amplifier_module_test_e2e_loop", LOOP),
                            ("amplifier_module_test_e2e_provider", PROVIDER)):
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text(textwrap.dedent(source), encoding="utf-8")
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("LOOKALIKE", ANTHROPIC_LOOKALIKE)
    return root


def plan(hooks: list[dict]) -> dict:
    return {
        "session": {"orchestrator": "test-e2e-loop", "context": "context-simple"},
        "providers": [{"module": "test-e2e-provider"}],
        "hooks": hooks,
    }


async def test_fake_key_in_env_appears_nowhere_in_events_jsonl(tmp_path, fake_modules):
    log_root = tmp_path / "logs"
    session = AmplifierSession(plan([
        {"module": "hooks-logging", "config": {"log_dir": str(log_root / "{session_id}")}},  # mounted first
        {"module": "hooks-redaction"},
    ]), session_id="sess-1")
    async with session:
        assert session.failed_modules == []
        answer = await session.execute(f"my key is {FAKE_KEY}, please remember it")
        history = await session.coordinator.get("context").get_messages()
    assert FAKE_KEY in answer  # the session itself is untouched: redaction is for observers
    assert FAKE_KEY in history[0]["content"]
    assert FAKE_KEY in history[-1]["content"]  # the tool input the loop got back from tool:pre

    text = (log_root / "sess-1" / "events.jsonl").read_text("utf-8")
    assert FAKE_KEY not in text and ANTHROPIC_LOOKALIKE not in text
    logged = [json.loads(line) for line in text.splitlines()]
    names = [record["event"] for record in logged]
    for expected in ("session:start", "prompt:submit", "llm:request", "llm:response", "tool:pre",
                     "demo:custom", "prompt:complete", "session:end"):
        assert expected in names
    assert "content_block:delta" not in names
    by_name = {record["event"]: record for record in logged}
    assert by_name["prompt:submit"]["data"]["prompt"] == "my key is [REDACTED:OPENAI_API_KEY], please remember it"
    assert "[REDACTED:OPENAI_API_KEY]" in by_name["llm:response"]["data"]["response"]["content"][0]["text"]
    assert all(record["session_id"] == "sess-1" for record in logged)


async def test_events_jsonl_goes_to_the_session_dir_the_app_registers(tmp_path, fake_modules):
    store = tmp_path / "store" / "sess-2"
    session = AmplifierSession(plan([{"module": "hooks-redaction"}, {"module": "hooks-logging"}]),
                               session_id="sess-2")
    session.coordinator.register_capability("session.dir", str(store))
    async with session:
        await session.execute(f"key {FAKE_KEY}")
    text = (store / "events.jsonl").read_text("utf-8")
    assert FAKE_KEY not in text and '"event": "session:end"' in text
