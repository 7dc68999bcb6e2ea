"""The session store: durable sessions under the data dir (metadata, transcript, events)."""

from __future__ import annotations

from .metadata import METADATA_VERSION, SessionMetadata
from .session_lock import SessionInUseError
from .store import (
    EVENTS_FILE,
    TRANSCRIPT_FILE,
    AmbiguousSessionIdError,
    SessionNotFoundError,
    SessionRecord,
    SessionStore,
    new_session_id,
)
from .transcript import INTERRUPTED_RESULT, TranscriptWriter, read_transcript, repair_transcript

__all__ = [
    "EVENTS_FILE",
    "INTERRUPTED_RESULT",
    "METADATA_VERSION",
    "TRANSCRIPT_FILE",
    "AmbiguousSessionIdError",
    "SessionInUseError",
    "SessionMetadata",
    "SessionNotFoundError",
    "SessionRecord",
    "SessionStore",
    "TranscriptWriter",
    "new_session_id",
    "read_transcript",
    "repair_transcript",
]
