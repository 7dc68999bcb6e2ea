"""context-persistent: context-simple's history and compaction, backed by an append-only JSONL file.

The compaction policy is context-simple's: both subclass or mount ``amplifier_support.compacting_context``'s
manager (modules never import each other). The file is read once, on mount
(resume); afterwards every added message is appended as one line and flushed, and whole-history changes
(set_messages, clear) rewrite the file atomically. The file is private (0600) and known secret values
(secret-named environment variables, capability ``secrets.values``) are written masked, ``[REDACTED:NAME]``:
the history in memory keeps them, the file never has them, and a resume reads the masked copy.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import model_validator

from amplifier_core.models import json_default
from amplifier_core.module_config import ModuleConfigError, parse_module_config
from amplifier_support.capability_names import (
    CONTEXT_TRANSCRIPT_PATH,
    SECRETS_VALUES,
    SESSION_TRANSCRIPT_PATH,
    SESSION_WORKING_DIR,
)
from amplifier_support.compacting_context import SimpleContextConfig, SimpleContextManager
from amplifier_support.secret_values import SecretValues

__amplifier_module_type__ = "context"
__all__ = ["PersistentContextConfig", "PersistentContextManager", "mount", "read_jsonl_messages"]

logger = logging.getLogger(__name__)

MODULE_ID = "context-persistent"
# Registered by this module: "every message is already written to this file", so an app that records
# transcripts itself can skip writing the same file twice.


class PersistentContextConfig(SimpleContextConfig):
    """context-simple's keys plus where the file lives and whether each append is fsynced."""

    path: str | None = None
    fsync: bool = False

    @model_validator(mode="before")
    @classmethod
    def _accept_upstream_path_key(cls, raw: Any) -> Any:
        if isinstance(raw, dict) and "transcript_path" in raw and "path" not in raw:
            raw = dict(raw)
            raw["path"] = raw.pop("transcript_path")
        return raw


# The transcript line format's version (docs/EVENTS.md, docs/schemas/transcript-line.schema.json): this file is
# the session's transcript.jsonl when the app hands its path over, so each line carries it like the app's own.
SCHEMA_FIELD = "schema_version"
TRANSCRIPT_SCHEMA_VERSION = 1
COMPACT_BOUNDARY = "compact_boundary"
"""Metadata flag of the first line written by a compaction (docs/EVENTS.md): the history in force starts at the
last such line; the lines before it stay in the file."""

# Characters str.splitlines() treats as line breaks that json.dumps(ensure_ascii=False) leaves raw.
_LINE_BREAK_ESCAPES = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})


def encode_message(message: dict[str, Any]) -> str:
    """One JSONL line (with its newline): the message plus ``schema_version``. Every line break inside strings
    is escaped, so each physical line holds exactly one message for any reader (including ones that split on
    Unicode line separators)."""
    line = {SCHEMA_FIELD: TRANSCRIPT_SCHEMA_VERSION, **message}
    encoded = json.dumps(line, ensure_ascii=False, default=json_default)
    return encoded.translate(_LINE_BREAK_ESCAPES) + "\n"


def _utf8(line: str, message: dict[str, Any]) -> bytes:
    """``line`` as UTF-8; text holding lone surrogates (a name that is not UTF-8) goes as JSON escapes instead."""
    try:
        return line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps({SCHEMA_FIELD: TRANSCRIPT_SCHEMA_VERSION, **message}, default=json_default)
        return (line + "\n").encode("ascii")


def _since_last_compaction(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for index in range(len(messages) - 1, -1, -1):
        metadata = messages[index].get("metadata")
        if isinstance(metadata, dict) and metadata.get(COMPACT_BOUNDARY) is True:
            return messages[index:]
    return messages


def read_jsonl_messages(path: Path) -> list[dict[str, Any]]:
    """The messages stored in ``path``; a line that is not a JSON object is skipped with a warning naming the
    file and line number (a crash mid-write leaves at most one such line, at the end)."""
    messages: list[dict[str, Any]] = []
    raw = path.read_bytes()
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            message = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            logger.warning("%s line %d: skipping a corrupt transcript line (%s)", path, number, error)
            continue
        if not isinstance(message, dict):
            logger.warning("%s line %d: skipping a transcript line that is not a message object (got %s)",
                           path, number, type(message).__name__)
            continue
        message.pop(SCHEMA_FIELD, None)  # the line format's version (docs/EVENTS.md), not a message field
        messages.append(message)
    return messages


class PersistentContextManager(SimpleContextManager):
    """A SimpleContextManager whose history is mirrored to a JSONL file, one message per line."""

    def __init__(self, path: Path, config: PersistentContextConfig | None = None, hooks: Any = None) -> None:
        super().__init__(config or PersistentContextConfig(), hooks=hooks)
        self.path = path
        self.loaded_from_file = False
        self._descriptor: int | None = None  # raw, unbuffered: a write that fails leaves nothing half-written
        self.secrets = SecretValues.from_environment()

    def open(self) -> None:
        """Resume from the file if it exists, then keep it open for appends."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists():
            messages = _since_last_compaction(read_jsonl_messages(self.path))
            self._load(messages, validated=True)  # validated when they were first added
            self.loaded_from_file = bool(messages)
            if messages:
                logger.info("context-persistent: resumed %d messages from %s", len(messages), self.path)
        self._open_for_append()

    def _open_for_append(self) -> None:
        needs_newline = self.path.exists() and self.path.stat().st_size > 0 and self._last_byte() != b"\n"
        self._descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        if needs_newline:  # a torn last line must not swallow the next message
            self._write(b"\n")

    def _last_byte(self) -> bytes:
        with open(self.path, "rb") as handle:
            handle.seek(-1, os.SEEK_END)
            return handle.read(1)

    def close(self) -> None:
        if self._descriptor is not None:
            os.close(self._descriptor)
            self._descriptor = None

    def _write(self, data: bytes) -> None:
        """Append ``data`` whole, or (when the disk or a file size limit refuses it) cut the file back to where it
        was and raise one OSError naming the file: what was saved before stays a readable transcript."""
        assert self._descriptor is not None
        start = os.fstat(self._descriptor).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._descriptor, view):]
            if getattr(self.config, "fsync", False):
                os.fsync(self._descriptor)
        except OSError as error:
            try:
                os.ftruncate(self._descriptor, start)
            except OSError:
                pass
            raise OSError(error.errno, "could not save the last message to the transcript (what was saved before "
                                       f"it is intact): {error.strerror or error}", str(self.path)) from None

    def _persist_append(self, message: dict[str, Any]) -> None:
        if self._descriptor is None:
            self._open_for_append()
        self._write(_utf8(encode_message(self.secrets.mask(message)), message))

    def _persist_replace(self) -> None:
        """Write the whole history to a temp file beside the transcript, fsync it, then os.replace it."""
        self.close()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor, temp_name = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp",
                                                 dir=self.path.parent)
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.writelines(_utf8(encode_message(self.secrets.mask(message)), message)
                                  for message in self._messages)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp_name, self.path)
        except BaseException:
            Path(temp_name).unlink(missing_ok=True)
            raise
        self._open_for_append()

    async def replace_after_compaction(self, messages: list[dict[str, Any]]) -> None:
        """The history becomes ``messages`` (a compaction's, its first marked as the boundary), appended to the
        file in one write rather than replacing it: the conversation before the summary stays in the file."""
        if self._descriptor is None:
            self._open_for_append()
        self._write(b"".join(_utf8(encode_message(self.secrets.mask(message)), message) for message in messages))
        self._load([message for message in messages if isinstance(message, dict)], validated=True)

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        """Replace the history and rewrite the file; a no-op when ``messages`` equal the history already held
        (the usual resume, where the app hands back what this manager loaded from its own file)."""
        if list(messages) == self._messages:
            return
        await super().set_messages(messages)


def _resolve_path(coordinator: Any, configured: str | None) -> Path:
    raw = configured
    if raw is None:
        capability = coordinator.get_capability(SESSION_TRANSCRIPT_PATH) if hasattr(coordinator,
                                                                                  "get_capability") else None
        raw = str(capability) if capability else None
    if not raw:
        raise ModuleConfigError(
            f"{MODULE_ID} config: no transcript file: set `path:` in the context config (e.g. "
            "path: ~/.amplifier/context/{session_id}.jsonl) or run it in an app that registers the "
            f"'{SESSION_TRANSCRIPT_PATH}' capability")
    session_id = getattr(coordinator, "session_id", None) or "session"
    path = Path(raw.replace("{session_id}", session_id)).expanduser()
    if not path.is_absolute():
        working_dir = coordinator.get_capability(SESSION_WORKING_DIR) if hasattr(coordinator,
                                                                                   "get_capability") else None
        path = Path(working_dir or os.getcwd()) / path
    return path


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Any:
    """Mount a PersistentContextManager at ``context``; returns a cleanup that closes the file."""
    parsed = parse_module_config(PersistentContextConfig, config, MODULE_ID)
    path = _resolve_path(coordinator, parsed.path)
    manager = PersistentContextManager(path, parsed, hooks=getattr(coordinator, "hooks", None))
    given = coordinator.get_capability(SECRETS_VALUES) if hasattr(coordinator, "get_capability") else None
    if isinstance(given, dict):
        manager.secrets = SecretValues.from_environment(given)
    try:
        manager.open()
    except OSError as error:
        reason = error.strerror or error
        raise ModuleConfigError(f"{MODULE_ID}: cannot open transcript file {path}: {reason}; "
                                "check that the directory is writable or set another `path:`") from error
    await coordinator.mount("context", manager)
    if hasattr(coordinator, "register_capability"):
        coordinator.register_capability(CONTEXT_TRANSCRIPT_PATH, str(path))
    return manager.close
