"""transcript.jsonl: one message per line, appended and flushed as each message completes, so a crash
loses at most the message in flight. Reading tolerates a corrupt line (reported, skipped).

The file is private (0600), and known secret values are masked (``[REDACTED:NAME]``) as each message is
written: the session in memory keeps them, the copy on disk never has them, and resume reads the masked copy."""

from __future__ import annotations

import gc
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

INTERRUPTED_RESULT = "[interrupted: this tool call did not finish because the session stopped]"


def encode_message(message: dict[str, Any]) -> str:
    # Imported here: the kernel is loaded whenever a session writes, but `session list` must not pay for it.
    from amplifier_core.models import json_default

    return json.dumps(message, ensure_ascii=False, default=json_default)


def open_private(path: Path, mode: str = "a") -> Any:
    """Open ``path`` for appending (``a``) or writing (``w``), creating it readable by the user only."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode == "a" else os.O_TRUNC)
    return open(os.open(path, flags, 0o600), mode, encoding="utf-8")


class TranscriptWriter:
    """Appends messages to a transcript file; each append is flushed to the OS before returning.

    ``secrets`` (an object with ``mask(value)``, e.g. ``amplifier_support.secret_values.SecretValues``)
    masks every message before it is written."""

    def __init__(self, path: Path, secrets: Any = None) -> None:
        self.path = path
        self.secrets = secrets
        self._file = open_private(path)

    def _encode(self, message: dict[str, Any]) -> str:
        if self.secrets is not None:
            message = self.secrets.mask(message)
        return encode_message(message)

    def append(self, message: dict[str, Any]) -> None:
        self._file.write(self._encode(message) + "\n")
        self._file.flush()

    def rewrite(self, messages: list[dict[str, Any]]) -> None:
        """Replace the whole transcript atomically (after /clear or a restore)."""
        self._file.close()
        handle, temp_name = tempfile.mkstemp(dir=self.path.parent, prefix=".transcript.", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as temp:
            temp.writelines(self._encode(message) + "\n" for message in messages)
        os.replace(temp_name, self.path)
        self._file = open_private(self.path)

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


@dataclass
class TranscriptRead:
    messages: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def read_transcript(path: Path, *, read_only: bool = False) -> TranscriptRead:
    """Load every valid line; a corrupt or truncated line becomes a warning naming file and line.

    The file is read once and, when every line is a message (the usual case), parsed by one ``json.loads`` of
    the lines joined as an array: a 10,000-message session resumes without 10,000 parser calls. With
    ``read_only`` the messages are built read-only while parsing (what a context stores; no copy later)."""
    hook = None
    if read_only:
        from amplifier_core.read_only_messages import read_only_json_object as hook
    result = TranscriptRead()
    try:
        raw = path.read_bytes()
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
    except json.JSONDecodeError:
        parsed = None
    finally:
        if collecting:
            gc.enable()
    if parsed is not None and len(parsed) == len(numbered) and all(
            isinstance(message, dict) and "role" in message for message in parsed):
        result.messages = parsed
        return result
    for number, line in numbered:  # some line is bad: parse them one by one to say which
        try:
            message = json.loads(line, object_pairs_hook=hook)
        except json.JSONDecodeError as error:
            result.warnings.append(f"{path}: line {number} is not valid JSON ({error.msg}); skipped it")
            continue
        if not isinstance(message, dict) or "role" not in message:
            result.warnings.append(f"{path}: line {number} is not a message (no 'role'); skipped it")
            continue
        result.messages.append(message)
    return result


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
