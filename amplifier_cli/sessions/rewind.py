"""Rewinding a stored session to before a turn: its files (from the shadow repository's checkpoints), its
conversation (the transcript cut before the turn), or both. Files whose content now differs from the last
state the session's tools left are the user's own edits: they are conflicts, listed and only overwritten
when the user says so."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .checkpoints import ShadowRepo, read_checkpoints
from .store import SessionRecord
from .store.fork import messages_up_to_turn, turn_starts


@dataclass
class RewindPlan:
    turn: int
    base: str | None = None  # the snapshot before the turn's first file-changing tool (None: nothing to undo)
    now: str | None = None
    changes: list[tuple[str, str]] = field(default_factory=list)  # (status now vs base, path)
    conflicts: list[str] = field(default_factory=list)  # changed by hand since the session's last tool
    diff: str = ""
    messages_kept: int = 0
    messages_dropped: int = 0


def plan_rewind(record: SessionRecord, repo: ShadowRepo, turn: int, *, files: bool, conversation: bool) -> RewindPlan:
    """What rewinding ``record`` to before ``turn`` would do; ValueError for a turn it does not have."""
    messages = record.read_transcript().messages
    turns = len(turn_starts(messages))
    if turn < 1 or turn > turns:
        raise ValueError(f"turn {turn} is not in the session: it has {turns} turn(s)")
    plan = RewindPlan(turn)
    if conversation:
        kept = messages_up_to_turn(messages, turn - 1) if turn > 1 else messages[:turn_starts(messages)[0]]
        plan.messages_kept, plan.messages_dropped = len(kept), len(messages) - len(kept)
    if files:
        entries = read_checkpoints(record.directory)
        later = [entry for entry in entries if int(entry.get("turn", 0)) >= turn]
        if later:
            plan.base = later[0]["commit"]
            last = entries[-1]["commit"]
            plan.now = repo.snapshot(f"before rewind to turn {turn}")
            plan.changes = repo.changed(plan.base, plan.now)
            plan.conflicts = [path for _, path in repo.changed(last, plan.now)]
            plan.diff = repo.diff_text(plan.base, plan.now)
    return plan


def apply_rewind(record: SessionRecord, repo: ShadowRepo, plan: RewindPlan, *, overwrite_conflicts: bool) -> list[str]:
    """Carry the plan out; returns the conflicting paths left as they are."""
    skipped: list[str] = []
    if plan.base is not None and plan.changes:
        chosen = [(status, path) for status, path in plan.changes
                  if overwrite_conflicts or path not in plan.conflicts]
        skipped = [path for _, path in plan.changes if path in plan.conflicts and not overwrite_conflicts]
        repo.restore(plan.base, chosen)
    if plan.messages_dropped:
        messages = record.read_transcript().messages
        kept = messages[:plan.messages_kept]
        record.writer.rewrite(kept)
        record.save_metadata(turn_count=plan.turn - 1, status="completed")
    return skipped


def project_of(record: SessionRecord, data_dir: Path) -> Path:
    """The tree the session's checkpoints snapshot: the app's worktree it ran in, else its project."""
    from ..config.paths import app_worktree_of

    worktree, _ = app_worktree_of(Path(record.metadata.cwd).resolve(), data_dir)
    return worktree or Path(record.metadata.project)
