"""`amplifier session list | show | delete | cleanup | resume | migrate`."""

from __future__ import annotations

from typing import Any

import typer

from .session_options import with_resume_options

session_app = typer.Typer(help="Saved sessions: list, show, resume, fork, rewind, delete, cleanup and migrate.",
                          no_args_is_help=True)


def _store_and_paths():
    from ..config.paths import AmplifierPaths
    from ..sessions.store.locations import session_store_for

    paths = AmplifierPaths.discover()
    return session_store_for(paths), paths


def _find(session_id: str):
    from ..errors import ConfigError
    from ..sessions.store import AmbiguousSessionIdError, SessionNotFoundError

    store, _ = _store_and_paths()
    try:
        return store, store.find(session_id)
    except (SessionNotFoundError, AmbiguousSessionIdError) as error:
        raise ConfigError.single(str(error)) from None  # the message says where to look


@session_app.command("list")
def list_sessions(
    all_projects: bool = typer.Option(False, "--all-projects", "-a", help="Sessions of every project."),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
    limit: int = typer.Option(20, "-n", "--limit", help="How many (most recent first); 0 for all."),
    children: bool = typer.Option(False, "--children", help="Include sub-agent sessions."),
) -> None:
    """Sessions of this project, most recent first."""
    from ..sessions.session_summaries import summary_row
    from ..sessions.store.locations import project_key

    if limit < 0:
        from ..errors import UsageError

        raise UsageError.single(f"--limit must be 0 or more, not {limit}", fix="e.g. -n 20, or -n 0 for all")
    store, paths = _store_and_paths()
    sessions = store.list(
        project=None if all_projects else project_key(paths), limit=limit or None, include_children=children
    )
    for path, reason in store.unreadable:  # one bad session must not hide silently, nor break the list
        typer.echo(f"warning: skipped session {path.parent.name}: {path} {reason}", err=True)
    rows = [summary_row(meta) for meta in sessions]
    if json_output:
        from ..ui.tables import print_json

        print_json(rows)
        return
    from amplifier_support.consoles import is_terminal

    from ..ui.tables import print_table

    prompt_width = 50 if is_terminal(None) else None  # piped: the whole prompt, on one line
    print_table(
        "Sessions" + ("" if all_projects else f" in {project_key(paths)}"),
        ["id", "updated", "profile", "model", "turns", "status", "first prompt"],
        [
            [
                r["session_id"][:8],
                r["updated"],
                r["profile"],
                r["model"],
                r["turns"],
                r["status"],
                " ".join((r["first_prompt"] or "").split())[:prompt_width],
            ]
            for r in rows
        ],
        empty='No sessions yet. Start one with: amplifier run "..."',
    )


@session_app.command("show")
def show(
    session_id: str = typer.Argument(..., help="Session id or unique prefix."),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Metadata and the last messages of a session."""
    from ..sessions.session_summaries import session_detail

    store, record = _find(session_id)
    detail = session_detail(record, store.children_of(record.session_id))
    if json_output:
        from ..ui.tables import print_json

        print_json(detail)
        return
    meta = detail["metadata"]
    for key in (
        "session_id",
        "parent_id",
        "profile",
        "provider",
        "model",
        "turn_count",
        "status",
        "created",
        "updated",
        "cwd",
    ):
        if meta.get(key) is not None:
            typer.echo(f"{key:>11}: {meta[key]}")
    typer.echo(f"{'directory':>11}: {detail['directory']}")
    counts = ", ".join(f"{role} {count}" for role, count in detail["message_counts"].items())
    typer.echo(f"{'messages':>11}: {counts or 'none'}")
    if detail["compactions"]:
        typer.echo(f"{'compacted':>11}: {detail['compactions']} time(s); the messages before each summary are kept "
                   "(rewind or fork to a turn before it to continue from there)")
    if detail["children"]:
        typer.echo(f"{'sub-agents':>11}: {', '.join(child[:8] for child in detail['children'])}")
    for warning in detail["warnings"]:
        typer.echo(f"warning: {warning}", err=True)
    for message in detail["recent_messages"]:
        typer.echo(f"\n[{message['role']}] {message['text']}")


@session_app.command("migrate")
def migrate(
    session_id: str = typer.Argument(None, help="Session id or unique prefix (default: every saved session)."),
) -> None:
    """Rewrite transcripts written by older versions to the current schema (docs/EVENTS.md)."""
    from ..sessions.store.session_lock import SessionInUseError
    from ..sessions.store.transcript import TRANSCRIPT_SCHEMA_VERSION, migrate_transcript

    store, _ = _store_and_paths()
    records = [_find(session_id)[1]] if session_id else [store.find(meta.session_id) for meta in store.all_metadata()]
    migrated = 0
    for record in records:
        try:
            record.lock()  # never under a process that has it open
        except SessionInUseError as error:
            typer.echo(f"skipped {record.session_id}: {error}", err=True)
            continue
        try:
            lines = migrate_transcript(record.transcript_path)
        finally:
            record.close()
        if lines:
            migrated += 1
            typer.echo(f"{record.session_id}: {lines} line(s) migrated")
    typer.echo(f"{migrated} of {len(records)} session(s) migrated to transcript schema_version "
               f"{TRANSCRIPT_SCHEMA_VERSION}")


@session_app.command("delete")
def delete(
    session_id: str = typer.Argument(..., help="Session id or unique prefix."),
    force: bool = typer.Option(False, "--force", "-f", help="Do not ask for confirmation."),
) -> None:
    """Delete a session (and its files)."""
    import sys

    from ..errors import UsageError

    store, record = _find(session_id)
    if not force:
        if not sys.stdin.isatty():
            raise UsageError.single(
                f"refusing to delete {record.session_id} without confirmation",
                fix="pass --force (-f) when not running in a terminal",
            )
        typer.confirm(f"Delete session {record.session_id}?", abort=True)
    store.delete(record.session_id)
    typer.echo(f"Deleted {record.session_id}")


@session_app.command("cleanup")
def cleanup(
    days: int = typer.Option(30, "--days", help="Delete sessions not updated for this many days."),
    all_projects: bool = typer.Option(False, "--all", "--all-projects", "-a", help="Sessions of every project."),
    force: bool = typer.Option(False, "--force", "-f", help="Do not ask for confirmation."),
) -> None:
    """Delete old sessions of this project (--all: of every project), after showing them and asking."""
    import sys

    from ..errors import UsageError
    from ..sessions.store import SessionInUseError
    from ..sessions.store.locations import project_key
    from ..ui.session_cleanup_lines import cleanup_lines

    if days < 0:
        raise UsageError.single("--days must be 0 or more", fix="e.g. --days 30")
    store, paths = _store_and_paths()
    where = "any project" if all_projects else str(project_key(paths))
    candidates = store.stale(days, project=None if all_projects else project_key(paths))
    live = [meta for meta in candidates if store.is_live(meta.session_id)]
    doomed = [meta for meta in candidates if meta not in live]
    for meta in live:  # a running session is never removed: its next write would fail
        typer.echo(f"Keeping {meta.session_id}: it is open in a running amplifier.", err=True)
    if not doomed:
        typer.echo(f"No sessions older than {days} day(s) in {where}.")
        return
    typer.echo(f"Sessions not updated for {days} day(s) in {where}:")
    for line in cleanup_lines(doomed, show_project=all_projects):
        typer.echo(f"  {line}")
    if not force:
        if not sys.stdin.isatty():
            raise UsageError.single(
                f"refusing to delete {len(doomed)} session(s) without confirmation",
                fix="pass --force (-f) when not running in a terminal",
            )
        typer.confirm(f"Delete these {len(doomed)} session(s)?", abort=True)
    deleted = 0
    for meta in doomed:
        try:
            store.delete(meta.session_id)
        except SessionInUseError:  # opened between the listing and now
            typer.echo(f"Keeping {meta.session_id}: it is open in a running amplifier.", err=True)
        except FileNotFoundError:
            pass  # removed meanwhile (with its parent, or by another cleanup)
        else:
            deleted += 1
    typer.echo(f"Deleted {deleted} session(s) older than {days} day(s).")


@session_app.command("resume")
@with_resume_options
def resume(
    session_id: str = typer.Argument(..., help="Session id or unique prefix."),
    prompt: str = typer.Argument(None, help="A prompt; without one (in a terminal) the chat resumes."),
    *,
    options: dict[str, Any],
) -> None:
    """Resume any session, from any directory (with the options `continue` takes)."""
    from .launch import start

    raise typer.Exit(start(prompt, resume=session_id, **options))


@session_app.command("fork")
def fork(
    session_id: str = typer.Argument(..., help="Session id or unique prefix."),
    at: int = typer.Option(None, "--at", help="Keep turns 1..AT of the conversation (default: all)."),
) -> None:
    """Start a new session from a copy of this one's conversation; the original stays as it was."""
    from .launch import fork_stored_session

    new_id = fork_stored_session(session_id, at)
    typer.echo(f"Forked {session_id} into {new_id}. Resume it with: amplifier run --resume {new_id[:8]}")


@session_app.command("rewind")
def rewind(
    session_id: str = typer.Argument(..., help="Session id or unique prefix."),
    to: int = typer.Option(..., "--to", help="Put things back as they were before this turn."),
    files_only: bool = typer.Option(False, "--files-only", help="Restore the files only."),
    conversation_only: bool = typer.Option(False, "--conversation-only", help="Cut the conversation only."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Apply without asking (files changed by hand are kept)."),
    overwrite_conflicts: bool = typer.Option(
        False, "--overwrite-conflicts", help="Also put back files changed by hand since the session's last tool."),
) -> None:
    """Rewind a session's files and/or conversation to before a turn; shows the diff and asks first."""
    import sys

    from ..config.paths import AmplifierPaths
    from ..errors import ConfigError, UsageError
    from ..sessions.checkpoints import INDEX_FILE, CheckpointError, ShadowRepo
    from ..sessions.rewind import apply_rewind, plan_rewind, project_of

    if files_only and conversation_only:
        raise UsageError.single("--files-only and --conversation-only exclude each other", fix="give one of them")
    _, record = _find(session_id)
    record.lock()
    try:
        data_dir = AmplifierPaths.discover().data_dir
        repo = ShadowRepo(data_dir, project_of(record, data_dir), record.directory / INDEX_FILE)
        try:
            plan = plan_rewind(record, repo, to, files=not conversation_only, conversation=not files_only)
        except ValueError as error:
            raise ConfigError.single(
                f"cannot rewind {record.session_id}: {error}",
                fix=f"see its turns with `amplifier session show {record.session_id[:8]}`") from None
        except CheckpointError as error:
            raise ConfigError.single(f"cannot rewind the files: {error}") from None
        if not conversation_only:
            if plan.changes:
                typer.echo(plan.diff.rstrip())
            else:
                typer.echo(f"No file changes to undo from turn {to} on.")
        conflicts = [path for _, path in plan.changes if path in plan.conflicts]
        if conflicts:
            typer.echo("Changed by hand since the session's last tool (conflicts): " + ", ".join(conflicts))
            kept_note = "kept as they are (--overwrite-conflicts puts them back too)."
            typer.echo("These are " + ("overwritten." if overwrite_conflicts else kept_note))
        if plan.messages_dropped:
            typer.echo(f"The conversation loses {plan.messages_dropped} message(s) from turn {to} on.")
        if not plan.changes and not plan.messages_dropped:
            return
        if not yes:
            if not sys.stdin.isatty():
                raise UsageError.single("refusing to rewind without confirmation",
                                        fix="pass --yes when not in a terminal")
            typer.confirm("Rewind?", abort=True)
        kept = apply_rewind(record, repo, plan, overwrite_conflicts=overwrite_conflicts)
        typer.echo(f"Rewound {record.session_id[:8]} to before turn {to}"
                   + (f"; kept your changes to {', '.join(kept)}" if kept else "") + ".")
    finally:
        record.close()


def register(root: typer.Typer) -> None:
    root.add_typer(session_app, name="session")
