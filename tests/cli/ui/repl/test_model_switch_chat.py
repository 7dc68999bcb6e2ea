"""`/model NAME` in the chat with both providers mounted: a model only one provider offers goes to that one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeapi import Turn

BOTH = """\
profile: {name: chat-test, description: both providers against the fake server}
session:
  orchestrator: {module: loop-streaming}
  context: {module: context-simple}
providers:
  - module: provider-anthropic
    config: {default_model: claude-test, max_retries: 0, priority: 1}
  - module: provider-openai
    config: {default_model: gpt-test, max_retries: 0}
hooks:
  - module: hooks-streaming-ui
"""


def test_model_only_openai_offers_switches_the_provider(spawn_chat, fake_api, chat_project: Path,
                                                         amplifier_home: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (chat_project / ".amplifier" / "profiles" / "chat-test.yaml").write_text(BOTH, encoding="utf-8")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_api.openai_base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-dummy-key")
    from testkit.trust import trust_project_now

    trust_project_now(chat_project)
    fake_api.add(Turn(text="first-reply"), when_last_user_contains="before")
    fake_api.add(Turn(text="openai-reply"), when_last_user_contains="after")
    chat = spawn_chat()
    chat.ready()
    chat.exchange("before", "first-reply")
    chat.exchange("/model gpt-5-mini", "Model for the next turns: openai · gpt-5-mini")
    chat.exchange("after", "openai-reply")
    assert chat.exit() == 0
    first, second = fake_api.requests
    assert first.api == "anthropic" and second.api != "anthropic" and second.model == "gpt-5-mini"
    [session] = [path for path in (amplifier_home / "data" / "sessions").iterdir() if path.is_dir()]
    metadata = json.loads((session / "metadata.json").read_text("utf-8"))
    assert (metadata["provider"], metadata["model"]) == ("openai", "gpt-5-mini")
