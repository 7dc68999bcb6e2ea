"""The session store: atomic metadata, flushed append-only transcripts, prefix lookup, listing,
cleanup, corrupt-line tolerance and the repair that makes an interrupted transcript resumable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from amplifier_cli.sessions.store import (
    INTERRUPTED_RESULT,
    METADATA_VERSION,
    AmbiguousSessionIdError,
    SessionNotFoundError,
    SessionStore,
    read_transcript,
    repair_transcript,
)
from amplifier_cli.sessions.store.recording_context import RecordingContext


def _store(tmp_path: Path) -> SessionStore:
    return SessionStore(tmp_path / "sessions")


def test_create_writes_metadata_with_version_before_any_turn(tmp_path: Path) -> None:
    record = _store(tmp_path).create(cwd=tmp_path, project=tmp_path, profile="demo", provider="scripted")
    saved = json.loads((record.directory / "metadata.json").read_text())
    assert saved["version"] == METADATA_VERSION
    assert saved["session_id"] == record.session_id and saved["profile"] == "demo"
    assert saved["turn_count"] == 0 and saved["status"] == "active"
    assert record.transcript_path.exists()


def test_metadata_updates_replace_the_file_atomically(tmp_path: Path) -> None:
    record = _store(tmp_path).create(cwd=tmp_path, project=tmp_path)
    record.save_metadata(turn_count=3, status="completed")
    assert json.loads((record.directory / "metadata.json").read_text())["turn_count"] == 3
    assert not [name for name in os.listdir(record.directory) if name.endswith(".tmp")]


def test_each_message_is_on_disk_as_soon_as_append_returns(tmp_path: Path) -> None:
    record = _store(tmp_path).create(cwd=tmp_path, project=tmp_path)
    record.writer.append({"role": "system", "content": "be brief"})
    record.writer.append({"role": "user", "content": "hi"})
    # Read through a separate process: only flushed data is visible there.
    code = f"import sys; print(open({str(record.transcript_path)!r}).read())"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert [json.loads(line)["role"] for line in shown.split("\n") if line.strip()] == ["system", "user"]


def test_a_corrupt_line_is_skipped_with_a_warning_naming_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "transcript.jsonl"
    path.write_text('{"role": "user", "content": "a"}\n{"role": "assis\n["not a message"]\n'
                    '{"role": "assistant", "content": "b"}\n')
    read = read_transcript(path)
    assert [m["content"] for m in read.messages] == ["a", "b"]
    assert f"{path}: line 2" in read.warnings[0] and "line 3" in read.warnings[1]


def test_find_accepts_unique_prefixes_and_lists_candidates_when_ambiguous(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.create(cwd=tmp_path, project=tmp_path, session_id="abc11111-0000-0000-0000-000000000000")
    store.create(cwd=tmp_path, project=tmp_path, session_id="abc22222-0000-0000-0000-000000000000")
    assert store.find("abc1").session_id.startswith("abc1")
    with pytest.raises(AmbiguousSessionIdError) as ambiguous:
        store.find("abc")
    assert "abc11111" in str(ambiguous.value) and "abc22222" in str(ambiguous.value)
    with pytest.raises(SessionNotFoundError, match="no session 'zzz'"):
        store.find("zzz")


def test_list_filters_by_project_hides_children_and_sorts_newest_first(tmp_path: Path) -> None:
    store = _store(tmp_path)
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    old = store.create(cwd=here, project=here, first_prompt="hi")
    new = store.create(cwd=here, project=here, first_prompt="hi")
    for record, stamp in ((old, "2026-01-01T00:00:00+00:00"), (new, "2026-02-01T00:00:00+00:00")):
        path = record.directory / "metadata.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), "updated": stamp}))
    store.create(cwd=elsewhere, project=elsewhere)
    store.create(cwd=here, project=here, parent_id=old.session_id)
    listed = store.list(project=here)
    assert [meta.session_id for meta in listed] == [new.session_id, old.session_id]
    assert len(store.list()) == 3 and len(store.list(include_children=True)) == 4
    assert store.latest(here).session_id == new.session_id
    assert [m.parent_id for m in store.children_of(old.session_id)] == [old.session_id]


def test_stale_offers_only_sessions_older_than_the_cutoff_and_delete_removes_them(tmp_path: Path) -> None:
    store = _store(tmp_path)
    stale = store.create(cwd=tmp_path, project=tmp_path, first_prompt="old")
    fresh = store.create(cwd=tmp_path, project=tmp_path, first_prompt="new")
    stale.close()
    fresh.close()
    metadata = json.loads((stale.directory / "metadata.json").read_text())
    metadata["updated"] = (datetime.now(UTC) - timedelta(days=40)).isoformat()
    (stale.directory / "metadata.json").write_text(json.dumps(metadata))
    assert [meta.session_id for meta in store.stale(30)] == [stale.session_id]
    assert store.stale(30, project=tmp_path / "elsewhere") == []
    store.delete(stale.session_id)
    assert [m.session_id for m in store.list()] == [fresh.session_id]


def test_repair_adds_interrupted_results_for_unanswered_tool_calls_in_place() -> None:
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [], "tool_calls": [{"id": "a", "tool": "bash"}, {"id": "b", "tool": "read"}]},
        {"role": "tool", "tool_call_id": "a", "content": "ok"},
        {"role": "user", "content": "next"},
        {"role": "assistant", "content": [{"type": "tool_call", "id": "c", "name": "bash", "input": {}}]},
    ]
    repaired, added = repair_transcript(messages)
    assert added == 2
    assert [m.get("tool_call_id") for m in repaired if m["role"] == "tool"] == ["a", "b", "c"]
    assert repaired[3] == {"role": "tool", "tool_call_id": "b", "name": "read", "content": INTERRUPTED_RESULT}
    assert repaired[4]["content"] == "next"
    assert repair_transcript(repaired) == (repaired, 0)


class _ListContext:
    def __init__(self) -> None:
        self.messages: list[dict] = []

    async def add_message(self, message: dict) -> None:
        self.messages.append(message)

    async def get_messages(self) -> list[dict]:
        return list(self.messages)

    async def get_messages_for_request(self, token_budget=None, provider=None) -> list[dict]:
        return list(self.messages)

    async def set_messages(self, messages: list[dict]) -> None:
        self.messages = list(messages)

    async def clear(self) -> None:
        self.messages = [m for m in self.messages if m["role"] == "system"]


async def test_recording_context_appends_every_message_and_rewrites_on_clear(tmp_path: Path) -> None:
    record = _store(tmp_path).create(cwd=tmp_path, project=tmp_path)
    context = RecordingContext(_ListContext(), record.writer)
    await context.add_message({"role": "system", "content": "sys"})
    await context.add_message({"role": "user", "content": "hello"})
    assert [m["role"] for m in record.read_transcript().messages] == ["system", "user"]
    await context.clear()
    assert [m["role"] for m in record.read_transcript().messages] == ["system"]
    await context.set_messages([{"role": "user", "content": "restored"}])
    assert record.read_transcript().messages == [{"role": "user", "content": "restored"}]
    assert context.messages == [{"role": "user", "content": "restored"}]  # other attributes pass through


def test_sessions_updated_within_the_same_second_are_listed_most_recent_first(tmp_path: Path) -> None:
    store = _store(tmp_path)
    records = [store.create(cwd=tmp_path, project=tmp_path) for _ in range(6)]
    for record in records:  # all within a fraction of a second, in this order
        record.save_metadata(turn_count=1)
    assert [meta.session_id for meta in store.list()] == [r.session_id for r in reversed(records)]
    assert store.latest(tmp_path).session_id == records[-1].session_id


def test_a_session_with_unreadable_metadata_is_reported_not_silently_hidden(tmp_path: Path) -> None:
    store = _store(tmp_path)
    good = store.create(cwd=tmp_path, project=tmp_path)
    bad = store.create(cwd=tmp_path, project=tmp_path, session_id="bad00000-0000-0000-0000-000000000000")
    (bad.directory / "metadata.json").write_text('{"session_id": ')
    assert [meta.session_id for meta in store.list()] == [good.session_id]
    assert [(path, reason) for path, reason in store.unreadable] == [
        (bad.directory / "metadata.json", store.unreadable[0][1])
    ]
    assert "not valid JSON" in store.unreadable[0][1]
    for wanted in ("bad0", bad.session_id):
        with pytest.raises(SessionNotFoundError) as caught:
            store.find(wanted)
        message = str(caught.value)
        assert str(bad.directory / "metadata.json") in message and "not valid JSON" in message
        assert "transcript" in message  # says the messages are still there


@pytest.mark.parametrize("lines", [
    ['{"role": "user", "content": "a"}, {"role": "user", "content": "b"}', '{"role": "assistant", "content": "c"}'],
    ['{"role": "user", "content": "a"', '}'],
    ['{"role": "user", "content": "a"}', '42'],
])
def test_lines_that_only_parse_together_are_still_reported_line_by_line(tmp_path: Path, lines: list[str]) -> None:
    """The whole file is parsed in one call when every line is a message; anything else falls back to
    line-by-line parsing, so a line is never accepted because of its neighbours."""
    path = tmp_path / "transcript.jsonl"
    path.write_text("\n".join(lines) + "\n")
    read = read_transcript(path)
    assert read.warnings
    expected = [json.loads(line) for line in lines if _is_message(line)]
    assert read.messages == expected


def _is_message(line: str) -> bool:
    try:
        value = json.loads(line)
    except ValueError:
        return False
    return isinstance(value, dict) and "role" in value


def test_a_long_transcript_with_windows_line_ends_and_unicode_separators_reads_whole(tmp_path: Path) -> None:
    messages = [{"role": "user", "content": f"line {n} \u2028 sep \u0085"} for n in range(500)]
    path = tmp_path / "transcript.jsonl"
    path.write_bytes("".join(json.dumps(m, ensure_ascii=False) + "\r\n" for m in messages).encode())
    read = read_transcript(path)
    assert read.messages == messages and read.warnings == []


async def test_restore_hands_messages_to_the_context_without_rewriting_the_transcript(tmp_path: Path) -> None:
    record = _store(tmp_path).create(cwd=tmp_path, project=tmp_path)
    for text in ("one", "two"):
        record.writer.append({"role": "user", "content": text})
    before = record.transcript_path.stat()
    inner = _ListContext()
    context = RecordingContext(inner, record.writer)
    await context.restore(record.read_transcript().messages)
    after = record.transcript_path.stat()
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (before.st_ino, before.st_mtime_ns, before.st_size)
    assert [m["content"] for m in inner.messages] == ["one", "two"]
    await context.add_message({"role": "assistant", "content": "three"})
    assert [m["content"] for m in record.read_transcript().messages] == ["one", "two", "three"]
