"""The published schemas (docs/schemas/) and docs (docs/EVENTS.md) match what the app writes: every stream-json
type the writer can produce fits the schema and is documented; a line without schema_version does not fit;
transcript lines carry schema_version, resume drops it, and a line written before it existed still reads."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest
from testkit.event_schemas import SCHEMAS, assert_stream_lines_valid, assert_transcript_valid, schema_problems

from amplifier_cli.sessions.store.transcript import TranscriptWriter, read_transcript
from amplifier_cli.sessions.subagent_hub import ChildRun, SubAgentHub
from amplifier_cli.ui.output_formats import StreamJsonWriter, write_json_line

DOCS = SCHEMAS.parent / "EVENTS.md"


def _writer_lines() -> list[dict]:
    """One call of each StreamJsonWriter handler, with payloads shaped as the kernel emits them."""
    out = io.StringIO()
    writer = StreamJsonWriter(out)
    sid = {"session_id": "s-1"}
    calls = [
        ("content_block:delta", {"block_type": "text", "delta": "Hel", **sid}),
        ("content_block:end", {"block": {"type": "text", "text": "Hello"}, **sid}),
        ("thinking:delta", {"delta": "hmm", **sid}),
        ("tool:pre", {"tool_call_id": "c1", "tool_name": "bash", "tool_input": {"command": "ls"}, **sid}),
        ("tool:post", {"tool_call_id": "c1", "tool_name": "bash",
                       "tool_result": {"success": False, "output": None, "error": {"message": "no"}}, **sid}),
        ("tool:error", {"tool_call_id": "c1", "tool_name": "bash", "error": "boom", **sid}),
        ("llm:response", {"provider": "anthropic", "model": "m", "usage": {"input_tokens": 3}, "cost_usd": "0.01",
                          **sid}),
        ("provider:error", {"error": "overloaded", **sid}),
        ("provider:retry", {"attempt": 1, "delay": 0.5, "message": "overloaded", **sid}),
    ]
    for event, data in calls:
        asyncio.run(writer._on_event(event, data))
    hub = SubAgentHub()
    writer.attach_children(hub)
    run = ChildRun(session_id="c-1", agent="helper", parent_session_id="s-1")
    for event, data in [("subagent:status", {"status": "queued"}), *calls]:
        asyncio.run(hub.publish(event, {**data, "session_id": "c-1"}, run))
    writer.write({"type": "init", "session_id": "s-1", "profile": "p", "provider": None, "model": None,
                  "tools": ["bash"], "resumed": False, "trust": {"trusted": True}})
    write_json_line(out, {"type": "result", "session_id": None, "status": "error", "response": None, "usage": None,
                          "model": None, "duration_ms": 3, "num_turns": 0, "cost_usd": None,
                          "error": "bad profile"})
    return assert_stream_lines_valid(out.getvalue())


def test_every_type_the_writer_produces_fits_the_schema_and_is_documented() -> None:
    lines = _writer_lines()
    produced = {line["type"] for line in lines}
    schema = json.loads((SCHEMAS / "stream-json.schema.json").read_text())
    published = {branch["properties"]["type"]["const"] for branch in schema["oneOf"]}
    assert produced == published
    docs = DOCS.read_text()
    for name in published:
        assert f"| `{name}` |" in docs, f"type {name} is not documented in {DOCS}"
    assert all(line["schema_version"] == 1 for line in lines)


def test_a_sub_agents_lines_name_its_agent_and_parent_and_the_parents_do_not() -> None:
    lines = _writer_lines()
    child = [line for line in lines if line["session_id"] == "c-1"]
    assert len(child) == 10 and child[0]["type"] == "agent_status" and child[0]["status"] == "queued"
    assert all(line["agent"] == "helper" and line["parent_session_id"] == "s-1" for line in child)
    assert not any("agent" in line for line in lines if line["session_id"] == "s-1")


def test_a_line_without_schema_version_or_with_an_unknown_field_does_not_fit() -> None:
    line = {"schema_version": 1, "type": "text", "text": "hi", "session_id": "s"}
    assert schema_problems(line, "stream-json.schema.json") == []
    assert schema_problems({k: v for k, v in line.items() if k != "schema_version"}, "stream-json.schema.json")
    assert schema_problems({**line, "surprise": 1}, "stream-json.schema.json")
    with pytest.raises(AssertionError, match="breaks the schema"):
        assert_stream_lines_valid(json.dumps({"type": "text", "text": "hi"}))


def test_transcript_lines_carry_schema_version_and_read_back_without_it(tmp_path: Path) -> None:
    path = tmp_path / "transcript.jsonl"
    writer = TranscriptWriter(path)
    messages = [{"role": "user", "content": "hi"},
                {"role": "assistant", "content": [{"type": "text", "text": "yo"}],
                 "metadata": {"schema_version": "kept: not the line's"}}]
    for message in messages:
        writer.append(message)
    writer.close()
    assert all(json.loads(line)["schema_version"] == 1 for line in path.read_text().splitlines())
    assert_transcript_valid(path)
    assert read_transcript(path).messages == messages
    assert read_transcript(path, read_only=True).messages == messages
    with path.open("a") as handle:  # a line written before schema_version existed
        handle.write(json.dumps({"role": "user", "content": "older"}) + "\n")
    assert read_transcript(path).messages[-1] == {"role": "user", "content": "older"}
