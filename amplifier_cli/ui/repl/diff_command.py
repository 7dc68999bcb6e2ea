"""`/diff`: the files the model's tools changed in this session, as a diff (from the session's checkpoints)."""

from __future__ import annotations

from typing import Any

from .output import say

_LINE_STYLES = (("+++", "title"), ("---", "title"), ("+", "ok"), ("-", "error"), ("@@", "info"), ("diff ", "title"))


def _style(line: str) -> str | None:
    return next((style for prefix, style in _LINE_STYLES if line.startswith(prefix)), None)


async def diff_command(repl: Any, argument: str) -> bool:
    from ...sessions.checkpoints import INDEX_FILE, CheckpointError, ShadowRepo
    from ...sessions.session_diff import session_diff

    live = await repl.session()
    if live is None:
        return True
    try:
        repo = ShadowRepo(repl.paths.data_dir, repl.paths.files_root, live.record.directory / INDEX_FILE)
        diff = session_diff(live.record.directory, repo)
    except CheckpointError as error:
        say(f"No diff: {error}", "error")
        return True
    if not diff.paths:
        say("The model's tools changed no file in this session yet." if diff.checkpoints
            else "No tool that can change files has run in this session yet.", "dim")
        return True
    say(f"Changed by the model's tools in this session: {', '.join(diff.paths)}", "title")
    for line in diff.text.rstrip("\n").splitlines():
        say(line, _style(line))
    say("Undo with /rewind N (files as before turn N).", "dim")
    return True
