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
from .transcript import (
    COMPACT_BOUNDARY,
    INTERRUPTED_RESULT,
    TranscriptWriter,
    is_compact_boundary,
    read_transcript,
    repair_transcript,
    since_last_compaction,
)

__all__ = [
    "COMPACT_BOUNDARY",
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
    "is_compact_boundary",
    "new_session_id",
    "read_transcript",
    "repair_transcript",
    "since_last_compaction",
]
