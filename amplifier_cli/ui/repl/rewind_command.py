"""`/rewind` in the chat: list the turns, or put the files and/or the conversation back as they were before
turn N, after showing the diff and asking; files changed by hand since the session's last tool are listed
as conflicts and asked about apart."""

from __future__ import annotations

from typing import Any

from .output import say, say_parts

MODES = {"": (True, True), "files": (True, False), "conversation": (False, True)}


async def rewind_command(repl: Any, argument: str) -> bool:
    from ...sessions.checkpoints import INDEX_FILE, CheckpointError, ShadowRepo
    from ...sessions.rewind import apply_rewind, plan_rewind
    from ...sessions.store.fork import turn_starts
    from .approval import choose_option

    live = await repl.session()
    if live is None:
        return True
    words = argument.split()
    messages = live.record.read_transcript().messages  # the whole file: turns before a /compact can be rewound to
    starts = turn_starts(messages)
    if not words:
        for number, index in enumerate(starts, start=1):
            text = messages[index].get("content")
            text = text if isinstance(text, str) else str(text)
            say_parts(("info", f"  {number}"), (None, "  " + text.replace("\n", " ")[:60]))
        say("Rewind with /rewind N [files|conversation] (before turn N; both by default).", "dim")
        return True
    mode = words[1] if len(words) > 1 else ""
    if not (words[0].isascii() and words[0].isdigit()) or mode not in MODES or len(words) > 2:
        say("Usage: /rewind [N [files|conversation]]", "error")
        return True
    turn = int(words[0])
    files, conversation = MODES[mode]
    repo = ShadowRepo(repl.paths.data_dir, repl.paths.files_root, live.record.directory / INDEX_FILE)
    try:
        plan = plan_rewind(live.record, repo, turn, files=files, conversation=conversation)
    except (ValueError, CheckpointError) as error:
        say(f"Not rewound: {error}", "error")
        return True
    if files:
        say(plan.diff.rstrip() if plan.changes else f"No file changes to undo from turn {turn} on.", "dim")
    if plan.messages_dropped:
        say(f"The conversation loses {plan.messages_dropped} message(s) from turn {turn} on.", "dim")
    if not plan.changes and not plan.messages_dropped:
        return True
    say_parts((None, "  [1] Rewind  [2] Cancel"))
    if await choose_option(["Rewind", "Cancel"]) != "Rewind":
        say("Nothing rewound.", "dim")
        return True
    overwrite = False
    conflicts = [path for _, path in plan.changes if path in plan.conflicts]
    if conflicts:
        say("Changed by hand since the session's last tool: " + ", ".join(conflicts), "warning")
        say_parts((None, "  [1] Keep my changes  [2] Overwrite them"))
        overwrite = await choose_option(["Keep my changes", "Overwrite them"]) == "Overwrite them"
    dropped = plan.messages_dropped
    plan.messages_dropped = 0  # the live context rewrites the transcript itself (below)
    kept = apply_rewind(live.record, repo, plan, overwrite_conflicts=overwrite)
    if dropped:
        await live.coordinator.get("context").set_messages(messages[:plan.messages_kept])
        live.record.save_metadata(turn_count=turn - 1)
    say(f"Rewound to before turn {turn}" + (f"; kept your changes to {', '.join(kept)}" if kept else "") + ".", "ok")
    return True
