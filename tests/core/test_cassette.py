"""The kernel's cassettes (amplifier_core/cassette.py) and the plugin's ``replay_cassette`` fixture: a session
recorded with provider-scripted replays in a session that mounts no provider at all; a changed prompt raises
ReplayMismatch naming the message; secrets go through the caller's mask; stream events are re-emitted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from amplifier_core import AmplifierSession
from amplifier_core.cassette import Cassette, CassetteError, ReplayMismatch, attach_cassette

SCRIPT = [{"text": "The answer is 42."}, {"text": "And again."}]


def _plan(*, provider: bool, orchestrator: str = "loop-streaming") -> dict[str, Any]:
    plan: dict[str, Any] = {"session": {"orchestrator": orchestrator, "context": "context-simple"}}
    if provider:
        plan["providers"] = [{"module": "provider-scripted", "config": {"script": SCRIPT}}]
    return plan


def _deltas(session: AmplifierSession) -> list[str]:
    seen: list[str] = []

    async def on_delta(event: str, data: dict[str, Any]) -> None:
        seen.append(data["delta"])

    session.coordinator.hooks.register("content_block:delta", on_delta)
    return seen


async def _record(directory: Path, *prompts: str) -> list[str]:
    session = AmplifierSession(_plan(provider=True))
    await session.initialize()
    cassette = Cassette(directory, "record", mask=lambda value: json.loads(
        json.dumps(value).replace("hunter2-secret", "[REDACTED:PASSWORD]")))
    attach_cassette(session.coordinator, cassette)
    answers = [await session.execute(prompt) for prompt in prompts]
    await session.cleanup()
    return answers


@pytest.mark.asyncio
async def test_the_fixture_replays_a_recorded_session_without_a_provider(tmp_path: Path, replay_cassette) -> None:
    recorded = await _record(tmp_path, "what is the answer?", "once more")
    assert recorded == ["The answer is 42.", "And again."]
    session = AmplifierSession(_plan(provider=False))
    await session.initialize()
    assert not session.coordinator.get("providers")  # nothing could answer without the cassette
    replay_cassette(session, tmp_path)
    deltas = _deltas(session)
    assert [await session.execute("what is the answer?"), await session.execute("once more")] == recorded
    assert "".join(deltas) == "".join(recorded)  # the provider's stream events, emitted again
    await session.cleanup()


@pytest.mark.asyncio
async def test_a_changed_prompt_names_the_message_that_differs(tmp_path: Path, replay_cassette) -> None:
    await _record(tmp_path, "what is the answer?")
    session = AmplifierSession(_plan(provider=False))
    await session.initialize()
    replay_cassette(session, tmp_path)
    with pytest.raises(ReplayMismatch, match=r"request 1 to provider 'scripted'.*message 1 \(user\) differs: "
                                             r"recorded what is the answer\?, now what is the question\?"):
        await session.execute("what is the question?")
    with pytest.raises(ReplayMismatch):  # the first mismatch ends the run: every later call raises it again
        await session.execute("what is the answer?")
    await session.cleanup()


@pytest.mark.asyncio
async def test_the_cassette_goes_through_the_mask(tmp_path: Path) -> None:
    await _record(tmp_path, "my password is hunter2-secret")
    text = (tmp_path / "cassette.jsonl").read_text()
    assert "hunter2-secret" not in text and "[REDACTED:PASSWORD]" in text
    record = json.loads(text.splitlines()[0])
    assert record["kind"] == "provider" and record["provider"] == "scripted"
    assert record["response"]["content"][0]["text"] == "The answer is 42."


def test_a_missing_or_broken_cassette_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CassetteError, match="no cassette there"):
        Cassette(tmp_path / "none", "replay")
    (tmp_path / "cassette.jsonl").write_text('{"kind": "provider"}\nnot json\n')
    with pytest.raises(CassetteError, match=r"cassette.jsonl:2: not JSON"):
        Cassette(tmp_path, "replay")
