"""transcript.jsonl: one message per line, appended and flushed as each message completes, so a crash
loses at most the message in flight. Reading tolerates a corrupt line (reported, skipped).

The file is private (0600), and known secret values are masked (``[REDACTED:NAME]``) as each message is
written: the session in memory keeps them, the copy on disk never has them, and resume reads the masked copy.

Every line carries ``schema_version`` (docs/schemas/transcript-line.schema.json, docs/EVENTS.md); reading drops
it (the context holds messages, not lines) and reads a line without it, written before it existed, as version 1."""

from __future__ import annotations

import gc
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .message_shape import message_problem
from .regular_files import open_regular, read_regular_file

INTERRUPTED_RESULT = "[interrupted: this tool call did not finish because the session stopped]"
COMPACT_BOUNDARY = "compact_boundary"
"""Metadata flag of the first message written after a compaction: the conversation in force starts there, and the
lines before it stay in the file for `session show`, rewind and fork."""
TRANSCRIPT_SCHEMA_VERSION = 1
SCHEMA_FIELD = "schema_version"


def encode_message(message: dict[str, Any]) -> str:
    # Imported here: the kernel is loaded whenever a session writes, but `session list` must not pay for it.
    from amplifier_core.models import json_default

    return json.dumps(message, ensure_ascii=False, default=json_default)


def open_private(path: Path, mode: str = "a") -> Any:
    """Open ``path`` for appending (``a``) or writing (``w``), creating it readable by the user only."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode == "a" else os.O_TRUNC)
    return open(os.open(path, flags, 0o600), mode, encoding="utf-8")


class TranscriptWriter:
    """Appends messages to a transcript file; each append reaches the OS before returning.

    ``secrets`` (an object with ``mask(value)``, e.g. ``amplifier_support.secret_values.SecretValues``)
    masks every message before it is written. A write that fails (disk full, file size limit, read-only file)
    is undone to the last whole line and raised as one OSError naming the transcript: what was written
    before stays a readable transcript."""

    def __init__(self, path: Path, secrets: Any = None) -> None:
        self.path = path
        self.secrets = secrets
        self._descriptor: int | None = self._open()

    def _open(self) -> int:
        try:
            return open_regular(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        except OSError as error:
            raise self._failure(error, "cannot open the transcript for writing") from None

    def _encode(self, message: dict[str, Any]) -> bytes:
        if self.secrets is not None:
            message = self.secrets.mask(message)
        line = {SCHEMA_FIELD: TRANSCRIPT_SCHEMA_VERSION, **message}
        return utf8_line(encode_message(line), line)

    def append(self, message: dict[str, Any]) -> None:
        self.append_all([message])

    def append_all(self, messages: list[dict[str, Any]]) -> None:
        """Append ``messages`` as one write: all of them reach the file, or (on failure) none."""
        data = b"".join(map(self._encode, messages))
        if self._descriptor is None:
            self._descriptor = self._open()
        descriptor = self._descriptor
        start = os.fstat(descriptor).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view):]
        except OSError as error:
            try:
                os.ftruncate(descriptor, start)  # no half line: the file stays what it was before this message
            except OSError:
                pass
            raise self._failure(error, "could not save the last message to the transcript (what was saved "
                                       "before it is intact)") from None

    def rewrite(self, messages: list[dict[str, Any]]) -> None:
        """Replace the whole transcript atomically (after /clear or a restore); on failure the old file stays."""
        self.close()
        handle, temp_name = tempfile.mkstemp(dir=self.path.parent, prefix=".transcript.", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as temp:
                for message in messages:
                    temp.write(self._encode(message))
            os.chmod(temp_name, 0o600)
            os.replace(temp_name, self.path)
        except OSError as error:
            Path(temp_name).unlink(missing_ok=True)
            raise self._failure(error, "could not rewrite the transcript (the previous one is unchanged)") from None
        finally:
            self._descriptor = self._open()

    def _failure(self, error: OSError, what: str) -> OSError:
        return OSError(error.errno, f"{what}: {error.strerror or error}", str(self.path))

    def close(self) -> None:
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None


def utf8_line(text: str, value: Any) -> bytes:
    """``text`` + newline as UTF-8. Text holding lone surrogates (a path or output that was not UTF-8, as
    Python decodes it) is re-encoded with JSON escapes, which read back to the same string."""
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        from amplifier_core.models import json_default

        return (json.dumps(value, ensure_ascii=True, default=json_default) + "\n").encode("ascii")


@dataclass
class TranscriptRead:
    messages: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def read_transcript(path: Path, *, read_only: bool = False) -> TranscriptRead:
    """Load every valid line; a corrupt or truncated line becomes a warning naming file and line.

    The file is read once and, when every line is a message (the usual case), parsed by one ``json.loads`` of
    the lines joined as an array: a 10,000-message session resumes without 10,000 parser calls. With
    ``read_only`` the messages are built read-only while parsing (what a context stores; no copy later)."""
    hook: Any = None
    if read_only:
        from amplifier_core.read_only_messages import read_only_json_object as hook
    result = TranscriptRead()
    try:
        raw = read_regular_file(path)
    except FileNotFoundError:
        return result
    lines = raw.decode("utf-8", errors="replace").split("\n")
    numbered = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    if not numbered:
        return result
    collecting = gc.isenabled()
    gc.disable()  # parsing makes a container per JSON object, none in a cycle: no need to scan for cycles
    try:
        parsed = json.loads("[" + ",".join(line for _, line in numbered) + "]", object_pairs_hook=hook)
    except (json.JSONDecodeError, RecursionError):
        parsed = None
    finally:
        if collecting:
            gc.enable()
    if parsed is not None and len(parsed) == len(numbered) and not any(map(message_problem, parsed)):
        result.messages = [_message_of(line) for line in parsed]
        return result
    for number, line in numbered:  # some line is bad: parse them one by one to say which
        try:
            message = json.loads(line, object_pairs_hook=hook)
        except (json.JSONDecodeError, RecursionError) as error:
            why = error.msg if isinstance(error, json.JSONDecodeError) else "nested too deeply"
            result.warnings.append(f"{path}: line {number} is not valid JSON ({why}); skipped it")
            continue
        problem = message_problem(message)
        if problem is not None:
            result.warnings.append(f"{path}: line {number} {problem}; skipped it")
            continue
        result.messages.append(_message_of(message))
    return result


def _message_of(line: dict[str, Any]) -> dict[str, Any]:
    """The message a line holds: the line without its ``schema_version`` (a read-only line stays read-only)."""
    if SCHEMA_FIELD not in line:
        return line
    return type(line)([(key, value) for key, value in line.items() if key != SCHEMA_FIELD])


def is_compact_boundary(message: dict[str, Any]) -> bool:
    metadata = message.get("metadata")
    return isinstance(metadata, dict) and metadata.get(COMPACT_BOUNDARY) is True


def since_last_compaction(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation a resume continues: from the last compaction boundary on (all of it when there is none)."""
    for index in range(len(messages) - 1, -1, -1):
        if is_compact_boundary(messages[index]):
            return messages[index:]
    return messages


def _tool_call_ids(message: dict[str, Any]) -> list[tuple[str, str]]:
    """(id, tool name) of every tool call an assistant message made, in either stored form."""
    calls: list[tuple[str, str]] = []
    for call in message.get("tool_calls") or []:
        if isinstance(call, dict) and call.get("id"):
            calls.append((call["id"], call.get("tool") or call.get("name") or ""))
    if not calls and isinstance(message.get("content"), list):
        for block in message["content"]:
            if isinstance(block, dict) and block.get("type") == "tool_call" and block.get("id"):
                calls.append((block["id"], block.get("name", "")))
    return calls


def repair_transcript(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """Give every tool call a result so a provider accepts the history: calls whose results never arrived
    get an "interrupted" tool result right after the results that did. Returns (messages, repairs)."""
    repaired: list[dict[str, Any]] = []
    added = 0
    index = 0
    while index < len(messages):
        message = messages[index]
        repaired.append(message)
        index += 1
        if message.get("role") != "assistant":
            continue
        calls = _tool_call_ids(message)
        if not calls:
            continue
        answered: set[str] = set()
        while index < len(messages) and messages[index].get("role") == "tool":
            answered.add(str(messages[index].get("tool_call_id")))
            repaired.append(messages[index])
            index += 1
        for call_id, name in calls:
            if call_id not in answered:
                repaired.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": INTERRUPTED_RESULT})
                added += 1
    return repaired, added


def migrate_transcript(path: Path) -> int:
    """Rewrite ``path`` (atomically, private) so every line carries the current ``schema_version``; return how many
    lines changed. A line that is not a JSON object is kept byte for byte: migrating never loses anything."""
    try:
        raw = read_regular_file(path)
    except FileNotFoundError:
        return 0
    lines = raw.split(b"\n")
    changed = 0
    out: list[bytes] = []
    for line in lines:
        if not line.strip():
            out.append(line)
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            value = None
        if not isinstance(value, dict) or value.get(SCHEMA_FIELD) == TRANSCRIPT_SCHEMA_VERSION:
            out.append(line)
            continue
        upgraded = {SCHEMA_FIELD: TRANSCRIPT_SCHEMA_VERSION, **_message_of(value)}
        out.append(utf8_line(encode_message(upgraded), upgraded).rstrip(b"\n"))
        changed += 1
    if changed:
        handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=".transcript.", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as temp:
                temp.write(b"\n".join(out))
            os.chmod(temp_name, 0o600)
            os.replace(temp_name, path)
        except OSError:
            Path(temp_name).unlink(missing_ok=True)
            raise
    return changed
