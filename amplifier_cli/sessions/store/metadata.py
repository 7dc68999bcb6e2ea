"""The session's metadata.json: small, rewritten atomically, read by `session list` without touching
transcripts."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

METADATA_VERSION = 1


def utc_now() -> str:
    # Microseconds: sessions updated within one second (a script running `run` then `continue`) must still
    # sort in the order they happened.
    return datetime.now(UTC).isoformat(timespec="microseconds")


def sort_key(stamp: str) -> datetime:
    """Order timestamps by time, whatever their precision (older files have whole seconds)."""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class SessionMetadata(BaseModel):
    """What is known about a session without reading its transcript. ``version`` lets later formats migrate."""

    model_config = ConfigDict(extra="allow")
    version: int = METADATA_VERSION
    session_id: str
    parent_id: str | None = None
    created: str
    updated: str
    cwd: str
    project: str
    profile: str | None = None
    provider: str | None = None
    model: str | None = None
    agent: str | None = None
    turn_count: int = 0
    status: Literal["active", "completed", "failed", "cancelled", "interrupted"] = "active"
    first_prompt: str | None = None
    provider_selected: bool = False  # the user picked the provider (--provider): keep it on resume
    model_selected: str | None = None  # the model the user picked (--model), re-applied on resume


def write_json_atomic(path: Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` so readers see the old or the new file, never half of one. A failed write (disk
    full, file size limit) leaves the old file and raises an OSError naming ``path``."""
    text = json.dumps(payload, indent=2, ensure_ascii=False)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a path that is not UTF-8 (lone surrogates): JSON escapes read back the same
        data = json.dumps(payload, indent=2, ensure_ascii=True).encode("ascii")
    try:
        handle, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise OSError(error.errno, f"cannot write {path.name}: {error.strerror}", str(path)) from None
    try:
        with os.fdopen(handle, "wb") as temp:
            temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        os.replace(temp_name, path)
    except OSError as error:
        Path(temp_name).unlink(missing_ok=True)
        raise OSError(error.errno, f"cannot write {path.name} (the previous one is unchanged): {error.strerror}",
                      str(path)) from None
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
