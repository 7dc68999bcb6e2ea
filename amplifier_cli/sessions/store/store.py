"""Sessions on disk: ``<data>/sessions/<id>/`` with metadata.json, transcript.jsonl and events.jsonl.

Private to the user: the store and each session directory are created 0700, the files in them 0600. Known
secret values (``SessionRecord.secrets``) are masked in what the record writes."""

from __future__ import annotations

import builtins  # SessionStore.list shadows the builtin inside the class
import json
import os
import re
import shutil
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .metadata import SessionMetadata, sort_key, utc_now, write_json_atomic
from .regular_files import read_regular_file
from .session_lock import SessionInUseError, holder_of, is_locked, release, try_lock
from .transcript import TranscriptRead, TranscriptWriter, open_private, read_transcript

METADATA_FILE = "metadata.json"
TRANSCRIPT_FILE = "transcript.jsonl"
EVENTS_FILE = "events.jsonl"


_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def is_safe_session_id(value: str) -> bool:
    """One plain path component: an id can never name a directory outside the store (no '/', '..')."""
    return bool(_SAFE_ID.fullmatch(value))


class SessionNotFoundError(LookupError):
    """No stored session matches the id or prefix the user gave."""


class AmbiguousSessionIdError(LookupError):
    """Several stored sessions start with the prefix the user gave."""

    def __init__(self, prefix: str, candidates: list[SessionMetadata]) -> None:
        self.candidates = candidates
        listed = ", ".join(f"{item.session_id} ({item.updated})" for item in candidates[:10])
        more = f" and {len(candidates) - 10} more" if len(candidates) > 10 else ""
        super().__init__(f"'{prefix}' matches {len(candidates)} sessions: {listed}{more}; give more characters")


class SessionRecord:
    """One stored session: its directory, metadata, and the transcript writer while it is live."""

    def __init__(self, directory: Path, metadata: SessionMetadata) -> None:
        self.directory = directory
        self.metadata = metadata
        self._writer: TranscriptWriter | None = None
        self._lock: int | None = None
        self.created_here = False  # made by this process: dropped again on close if no message was ever sent
        self.secrets: Any = None  # set by the app: ``mask(value)`` applied to everything the record writes

    @property
    def session_id(self) -> str:
        return self.metadata.session_id

    @property
    def transcript_path(self) -> Path:
        return self.directory / TRANSCRIPT_FILE

    @property
    def events_path(self) -> Path:
        return self.directory / EVENTS_FILE

    def save_metadata(self, **changes: Any) -> None:
        for key, value in changes.items():
            setattr(self.metadata, key, value)
        self.metadata.updated = utc_now()
        payload = self.metadata.model_dump(mode="json")
        if self.secrets is not None:
            payload = self.secrets.mask(payload)
        write_json_atomic(self.directory / METADATA_FILE, payload)

    def write_private_file(self, name: str, text: str) -> Path:
        """A file of this session (e.g. the mount plan), 0600, with secret values masked."""
        path = self.directory / name
        if self.secrets is not None:
            text = self.secrets.mask_text(text)
        with open_private(path, "w") as handle:
            handle.write(text)
        return path

    @property
    def writer(self) -> TranscriptWriter:
        if self._writer is None:
            self._writer = TranscriptWriter(self.transcript_path, self.secrets)
        return self._writer

    def read_transcript(self, *, read_only: bool = False) -> TranscriptRead:
        return read_transcript(self.transcript_path, read_only=read_only)

    def lock(self) -> None:
        """Take the session for this process until ``close``; SessionInUseError names the process that has it."""
        if self._lock is not None:
            return
        try:
            self._lock = try_lock(self.directory)
        except OSError as error:
            raise OSError(error.errno, f"cannot lock the session: {error.strerror}", error.filename) from None
        if self._lock is None:
            raise SessionInUseError(self.session_id, holder_of(self.directory))

    @property
    def has_messages(self) -> bool:
        """The user said something in this session (an opened and closed chat is not a session to keep)."""
        return has_messages(self.metadata)

    def close(self) -> None:
        """Stop writing and let other processes open the session. A session this process created in which no
        message was ever sent is removed: it holds only the system instruction, which a new session recreates."""
        try:
            if self._writer is not None:
                self._writer.close()
                self._writer = None
            if self.created_here and not self.has_messages and self._lock is not None:
                shutil.rmtree(self.directory, ignore_errors=True)
        finally:
            release(self._lock)
            self._lock = None


def has_messages(meta: SessionMetadata) -> bool:
    return meta.turn_count > 0 or meta.first_prompt is not None


def new_session_id() -> str:
    return str(uuid.uuid4())


class SessionStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        # (metadata.json path, why it cannot be read) for sessions the last listing had to skip
        self.unreadable: list[tuple[Path, str]] = []

    def create(self, *, cwd: Path, project: Path, session_id: str | None = None, **fields: Any) -> SessionRecord:
        session_id = session_id or new_session_id()
        if not is_safe_session_id(session_id):
            raise ValueError(f"'{session_id}' is not a valid session id (letters, digits, '.', '_', '-' only)")
        directory = self.root / session_id
        if (directory / METADATA_FILE).exists():
            raise FileExistsError(f"a session with id {session_id} already exists in {self.root}")
        if not self.root.is_dir():
            self.root.mkdir(parents=True, exist_ok=True)
            os.chmod(self.root, 0o700)
        directory.mkdir(mode=0o700, exist_ok=True)
        os.chmod(directory, 0o700)
        now = utc_now()
        metadata = SessionMetadata(
            session_id=session_id, created=now, updated=now, cwd=str(cwd), project=str(project), **fields
        )
        record = SessionRecord(directory, metadata)
        record.lock()
        record.created_here = True
        record.save_metadata()
        open_private(record.transcript_path).close()
        return record

    def _load(self, directory: Path) -> SessionMetadata | None:
        return self._load_or_reason(directory)[0]

    def _load_or_reason(self, directory: Path) -> tuple[SessionMetadata | None, str]:
        """The metadata, or None and why it cannot be read (missing, not JSON, wrong shape)."""
        path = directory / METADATA_FILE
        try:
            data = json.loads(read_regular_file(path).decode("utf-8"))
        except FileNotFoundError:
            return None, "metadata.json is missing"
        except OSError as error:
            return None, f"cannot be read ({error.strerror or error})"
        except UnicodeDecodeError:
            return None, "is not UTF-8 text"
        except ValueError as error:
            return None, f"is not valid JSON ({getattr(error, 'msg', error)})"
        try:
            return SessionMetadata.model_validate(data), ""
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "top level"
            return None, f"has a bad value at '{where}': {first['msg']}"

    def all_metadata(self) -> list[SessionMetadata]:
        """Every readable session, most recently updated first (reads metadata files only). Sessions whose
        metadata cannot be read are skipped and recorded in ``self.unreadable`` so callers can say so."""
        self.unreadable = []
        if not self.root.is_dir():
            return []
        found = []
        for child in self.root.iterdir():
            if not child.is_dir() or child.name.startswith("."):
                continue
            meta, reason = self._load_or_reason(child)
            if meta is not None:
                found.append(meta)
            elif (child / METADATA_FILE).exists() or (child / TRANSCRIPT_FILE).exists():
                self.unreadable.append((child / METADATA_FILE, reason))
        found.sort(key=lambda meta: sort_key(meta.updated), reverse=True)
        return found

    def list(
        self, *, project: Path | None = None, limit: int | None = None, include_children: bool = False,
        include_empty: bool = True,
    ) -> list[SessionMetadata]:
        """Sessions, most recent first; ``include_empty=False`` leaves out those in which no message was ever
        sent (a clean exit removes them; a crash or an older version may have left some)."""
        sessions = [
            meta
            for meta in self.all_metadata()
            if (project is None or meta.project == str(project)) and (include_children or not meta.parent_id)
            and (include_empty or has_messages(meta))
        ]
        return sessions[:limit] if limit else sessions

    def children_of(self, session_id: str) -> builtins.list[SessionMetadata]:
        return [meta for meta in self.all_metadata() if meta.parent_id == session_id]

    def find(self, id_or_prefix: str) -> SessionRecord:
        """The session whose id is ``id_or_prefix`` or uniquely starts with it."""
        wanted = id_or_prefix.strip()
        if not wanted:
            raise SessionNotFoundError("no session id given")
        if not is_safe_session_id(wanted):
            raise SessionNotFoundError(f"'{wanted}' is not a session id (ids are UUIDs like 3f2b9c1e-...)")
        exact = self.root / wanted
        if (exact / METADATA_FILE).exists() and (meta := self._load(exact)):
            return SessionRecord(exact, meta)
        matches = [meta for meta in self.all_metadata() if meta.session_id.startswith(wanted)]
        broken = [(path, why) for path, why in self.unreadable if path.parent.name.startswith(wanted)]
        if not matches and len(broken) == 1:
            path, why = broken[0]
            raise SessionNotFoundError(
                f"session {path.parent.name} cannot be opened: {path} {why} (its messages are still in "
                f"{path.parent / TRANSCRIPT_FILE}; fix: restore metadata.json from a backup, or delete "
                f"{path.parent} if the session is not needed)"
            )
        if not matches:
            raise SessionNotFoundError(
                f"no session '{wanted}' in {self.root} (see `amplifier session list --all-projects`)"
            )
        if len(matches) > 1:
            raise AmbiguousSessionIdError(wanted, matches)
        return SessionRecord(self.root / matches[0].session_id, matches[0])

    def latest(self, project: Path) -> SessionRecord | None:
        """The session `amplifier continue` resumes: the project's most recent one with a message in it."""
        sessions = self.list(project=project, limit=1, include_empty=False)
        return SessionRecord(self.root / sessions[0].session_id, sessions[0]) if sessions else None

    def delete(self, session_id: str) -> None:
        """Remove a session's directory, holding its lock meanwhile: a session open in a live process is
        never removed (SessionInUseError), and nobody can open it while it goes."""
        if not is_safe_session_id(session_id):
            raise ValueError(f"'{session_id}' is not a valid session id")
        directory = self.root / session_id
        descriptor = try_lock(directory)
        if descriptor is None:
            raise SessionInUseError(session_id, holder_of(directory))
        try:
            shutil.rmtree(directory)
        finally:
            release(descriptor)

    def is_live(self, session_id: str) -> bool:
        """Some process has the session open right now."""
        return is_safe_session_id(session_id) and is_locked(self.root / session_id)

    def stale(self, older_than_days: int, *, project: Path | None = None) -> builtins.list[SessionMetadata]:
        """Sessions (sub-agents included) not updated for ``older_than_days`` days, of ``project`` or of all
        projects when it is None, oldest first. What `session cleanup` offers to delete."""
        cutoff = datetime.now(UTC) - timedelta(days=older_than_days)
        found = [
            meta for meta in self.list(project=project, include_children=True)
            if sort_key(meta.updated) < cutoff
        ]
        return sorted(found, key=lambda meta: sort_key(meta.updated))
