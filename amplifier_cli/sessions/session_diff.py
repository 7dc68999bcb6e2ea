"""What the model's tools changed in the files of a session, read from its checkpoints (sessions/checkpoints.py):
the files some tool call changed (between its `pre` and `post` snapshot), diffed from the session's first
snapshot to its last. Edits made by hand between tool calls to other files are not the model's: left out."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .checkpoints import ShadowRepo, read_checkpoints


@dataclass
class SessionDiff:
    paths: list[str] = field(default_factory=list)  # files the tools changed, in the order first changed
    text: str = ""  # `git diff --stat -p` of those files, first snapshot -> last
    checkpoints: int = 0  # how many snapshots the session has


def tool_changed_paths(repo: ShadowRepo, entries: list[dict[str, Any]]) -> list[str]:
    """Paths that differ between a tool call's `pre` snapshot and the `post` snapshot that follows it."""
    paths: list[str] = []
    open_pre: dict[str, str] = {}  # tool -> commit of its latest unmatched `pre`
    for entry in entries:
        tool, commit = str(entry.get("tool")), str(entry.get("commit"))
        if entry.get("when") == "pre":
            open_pre[tool] = commit
            continue
        before = open_pre.pop(tool, None)
        if before is None:
            continue
        for _status, path in repo.changed(before, commit):
            if path not in paths:
                paths.append(path)
    return paths


def session_diff(session_directory: Path, repo: ShadowRepo) -> SessionDiff:
    """The diff of what the session's tools changed (CheckpointError when git fails)."""
    entries = [entry for entry in read_checkpoints(session_directory) if entry.get("commit")]
    if not entries:
        return SessionDiff()
    paths = tool_changed_paths(repo, entries)
    if not paths:
        return SessionDiff(checkpoints=len(entries))
    first, last = str(entries[0]["commit"]), str(entries[-1]["commit"])
    text = repo.diff_text(first, last, paths)
    return SessionDiff(paths=paths, text=text, checkpoints=len(entries))
