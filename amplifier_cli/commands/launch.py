"""Starting a session from the command line: what `amplifier run`, `continue`, `session resume` and the bare
`amplifier` chat share once their options are parsed (REPL or one-shot, checks of the option values).

Free of typer: bare `amplifier` in a terminal, and `amplifier run` / `continue` in the plain forms `run_argv`
reads, start from here without importing typer at all (see `amplifier_cli/__main__.py`).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from ..ui.oneshot import ApprovalMode, OutputFormat

OUTPUT_FORMATS = ("text", "json", "stream-json")
APPROVAL_MODES = ("ask", "allow", "deny")
SESSION_MODES = ("normal", "plan", "accept-edits")  # sessions/plan_mode.py
DEFAULT_OUTPUT_FORMAT = OUTPUT_FORMATS[0]
DEFAULT_APPROVAL = APPROVAL_MODES[0]


def in_a_terminal() -> bool:
    """stdin and stdout are both a terminal: bare `amplifier` opens the chat there and prints its help elsewhere."""
    return sys.stdin is not None and sys.stdin.isatty() and sys.stdout is not None and sys.stdout.isatty()


def _read_piped_stdin() -> str | None:
    """Whatever was piped in (None when stdin is a terminal or closed); bytes that are not UTF-8 become U+FFFD."""
    try:
        if sys.stdin is None or sys.stdin.isatty():
            return None
        stream = getattr(sys.stdin, "buffer", None)
        data = stream.read().decode("utf-8", errors="replace") if stream is not None else sys.stdin.read()
    except (OSError, ValueError):
        return None
    return data if data.strip() else None


def _valid_text(text: str) -> str:
    """Python hands argv bytes that are not UTF-8 over as lone surrogates, which no file or API accepts:
    turn them back into their bytes and show them as U+FFFD."""
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")


def compose_prompt(prompt: str | None) -> str | None:
    """The argument, with piped stdin appended (or stdin alone when there is no argument)."""
    piped = _read_piped_stdin()
    prompt = _valid_text(prompt) if prompt else prompt
    if prompt and piped:
        return f"{prompt}\n\n{piped}"
    return prompt or piped


def _check_choice(value: str, allowed: tuple[str, ...], option: str) -> None:
    from ..errors import UsageError

    if value not in allowed:
        raise UsageError.single(
            f"{option} must be one of {', '.join(allowed)}, not '{value}'", fix=f"use {option} {allowed[0]}"
        )


def start(
    prompt: str | None,
    *,
    profile: str | None = None,
    provider: str | None = None,
    model: str | None = None,
    resume: str | None = None,
    session_id: str | None = None,
    output_format: str = DEFAULT_OUTPUT_FORMAT,
    approval: str = DEFAULT_APPROVAL,
    max_turns: int | None = None,
    max_tokens: int | None = None,
    continue_latest: bool = False,
    sandbox: str | None = None,
    mode: str | None = None,
    record: str | None = None,
    replay: str | None = None,
    replay_tools: bool = False,
    max_total_tokens: int | None = None,
    max_cost: str | None = None,
    fork: bool = False,
    chat: bool = False,
    images: list[str] | None = None,
    worktree: str | None = None,
) -> int:
    """Shared by run/continue/session resume: pick REPL or one-shot, then run it. ``chat``: a prompt opens the
    chat with it as the first message when stdin and stdout are a terminal (`amplifier "PROMPT"`)."""
    _check_choices(output_format=output_format, approval=approval, sandbox=sandbox, mode=mode)
    budget = _check_limits(max_turns, max_tokens, max_total_tokens, max_cost)
    if worktree is not None:  # the same start, from inside a new worktree
        _check_worktree(worktree, resumed=bool(resume or continue_latest))
        return _in_worktree(worktree, lambda: start(
            prompt, profile=profile, provider=provider, model=model, session_id=session_id,
            output_format=output_format, approval=approval, max_turns=max_turns, max_tokens=max_tokens,
            sandbox=sandbox, mode=mode, record=record, replay=replay, replay_tools=replay_tools,
            max_total_tokens=max_total_tokens, max_cost=max_cost, fork=fork, chat=chat, images=images))
    resume = _session_to_resume(resume, session_id, fork=fork, continue_latest=continue_latest)
    _check_cassette_options(record, replay, replay_tools)
    attached = _read_images(images)
    first_message = _valid_text(prompt) if chat and prompt and in_a_terminal() else None
    text = None if first_message is not None else compose_prompt(prompt)

    from ..sessions.request import SessionRequest

    request = SessionRequest(profile=profile, provider=provider, model=model, session_id=session_id, resume_id=resume,
                             sandbox=sandbox, mode=mode or SESSION_MODES[0], budget=budget,
                             max_tokens=max_tokens)
    if record is not None or replay is not None:
        from ..sessions.cassettes import open_cassette

        request.cassette = open_cassette(record, replay, replay_tools)
    if text is not None:
        from ..ui.oneshot import OneShotOptions, run_one_shot_sync

        return run_one_shot_sync(request, OneShotOptions(
            prompt=text,
            output_format=cast("OutputFormat", output_format),  # checked against OUTPUT_FORMATS above
            approval=cast("ApprovalMode", approval),  # checked against APPROVAL_MODES above
            max_turns=max_turns,
            images=attached,
        ))
    return _start_chat(request, approval, first_message, attached=bool(attached),
                       first_run=profile is None and provider is None and resume is None)


def _check_choices(*, output_format: str = DEFAULT_OUTPUT_FORMAT, approval: str = DEFAULT_APPROVAL,
                   sandbox: str | None = None, mode: str | None = None) -> None:
    """The options that take one of a few words (shared by run, continue, the chat and acp)."""
    _check_choice(output_format, OUTPUT_FORMATS, "--output-format")
    _check_choice(approval, APPROVAL_MODES, "--approval")
    if sandbox is not None:
        from amplifier_support.sandbox_modes import MODES as SANDBOX_MODES  # only when the flag is given

        _check_choice(sandbox, SANDBOX_MODES, "--sandbox")
    if mode is not None:
        _check_choice(mode, SESSION_MODES, "--mode")


def _check_limits(max_turns: int | None, max_tokens: int | None, max_total_tokens: int | None,
                  max_cost: str | None) -> Any:
    """The budget the limits make (None without any), after checking each limit is positive."""
    from ..errors import UsageError

    if max_turns is not None and max_turns < 1:
        raise UsageError.single("--max-turns must be at least 1", fix="pass a positive number, e.g. --max-turns 10")
    budget = _budget(max_turns, max_total_tokens, max_cost)
    if max_tokens is not None and max_tokens < 1:
        raise UsageError.single("--max-tokens must be at least 1", fix="pass a positive number, e.g. --max-tokens 500")
    return budget


def _session_to_resume(resume: str | None, session_id: str | None, *, fork: bool, continue_latest: bool) -> str | None:
    """The id of the session to resume (the latest for `continue`, a new copy with --fork), after checking that
    the session options go together."""
    from ..errors import UsageError

    if resume and session_id:
        raise UsageError.single(
            "--resume and --session-id cannot be combined",
            fix="use --resume ID to continue a session, --session-id ID to name a new one",
        )
    if session_id is not None:
        _check_new_session_id(session_id)
    if fork and not resume and not continue_latest:
        raise UsageError.single("--fork needs a session to fork", fix="use it with --resume ID")
    if continue_latest:
        resume = _latest_session_id()
    if fork and resume:
        resume = fork_stored_session(resume, None)
    return resume


def _start_chat(request: Any, approval: str, first_message: str | None, *, attached: bool, first_run: bool) -> int:
    """No prompt to run: the chat, when stdin is a terminal (first-run setup before it when nothing was chosen)."""
    from ..errors import UsageError

    if attached:
        raise UsageError.single("--image needs a prompt to go with it",
                                fix='add one: amplifier run --image pic.png "what is in this picture?"')
    if sys.stdin is None or not sys.stdin.isatty():
        raise UsageError.single(
            "no prompt given and stdin is not a terminal", fix='pass a prompt: amplifier run "..." (or pipe one in)'
        )
    from ..ui.repl import run_repl

    if first_run:
        _first_run_setup()
    return run_repl(request, approval=approval, first_message=first_message)


def _check_worktree(name: str, *, resumed: bool) -> None:
    from ..errors import UsageError

    if resumed:
        raise UsageError.single("--worktree starts a new session in a new worktree; a resumed one goes on where "
                                "it ran", fix="drop --worktree, or drop --resume to start afresh")
    if name:
        from ..sessions.worktrees import check_name

        check_name(name)


def _in_worktree(name: str, run: Any) -> int:
    """Run the session in a new git worktree (sessions/worktrees.py): say where it is, work there, then keep it
    with its changes committed on its branch, or remove it when nothing changed."""
    import os
    from pathlib import Path

    from ..config.paths import AmplifierPaths
    from ..errors import AmplifierError
    from ..sessions.worktrees import create_worktree, finish_worktree

    paths = AmplifierPaths.discover()
    worktree = create_worktree(paths.data_dir, paths.cwd, name or None)
    sys.stderr.write(f"Working in worktree '{worktree.name}' at {worktree.path} (branch {worktree.branch}, "
                     f"from {worktree.base[:8]}); the main checkout is left as it is.\n")
    sys.stderr.flush()
    previous = Path.cwd()
    inside = worktree.path / previous.relative_to(worktree.repo) if previous.is_relative_to(worktree.repo) \
        else worktree.path
    os.chdir(inside if inside.is_dir() else worktree.path)
    try:
        return run()
    finally:
        os.chdir(previous)
        try:
            kept = finish_worktree(worktree, f"amplifier: the session's work in worktree {worktree.name}")
        except AmplifierError as error:
            sys.stderr.write(f"warning: worktree '{worktree.name}' ({worktree.path}): {error.render()}\n")
        else:
            if kept:
                files = ", ".join(worktree.changed_files[:10]) + (" ..." if len(worktree.changed_files) > 10 else "")
                sys.stderr.write(f"Worktree '{worktree.name}' kept at {worktree.path}: branch {worktree.branch} "
                                 f"changes {files or 'nothing'}. Remove it with: amplifier worktree remove "
                                 f"{worktree.name}\n")
            else:
                sys.stderr.write(f"Worktree '{worktree.name}' removed: nothing changed in it.\n")


def _read_images(images: list[str] | None) -> list[dict[str, Any]]:
    """The `--image` files as ImageBlocks (sessions/prompt_images), read before anything starts; a file that
    cannot be sent is a usage error naming it."""
    if not images:
        return []
    from ..errors import UsageError
    from ..sessions.prompt_images import MAX_IMAGES, ImageProblem, check_prompt_images, read_image

    if len(images) > MAX_IMAGES:  # before reading any of them
        raise UsageError.single(f"{len(images)} --image files, more than the {MAX_IMAGES} one prompt may carry",
                                fix=f"attach at most {MAX_IMAGES}, or split the question")
    from pathlib import Path

    blocks = []
    for name in images:
        try:
            blocks.append(read_image(Path(name), name))
        except ImageProblem as problem:
            raise UsageError.single(f"--image {problem.message}", fix=problem.fix) from None
    try:
        check_prompt_images(blocks)
    except ImageProblem as problem:
        raise UsageError.single(f"--image: {problem.message}", fix=problem.fix) from None
    return blocks


def _check_cassette_options(record: str | None, replay: str | None, replay_tools: bool) -> None:
    from ..errors import UsageError

    if record is not None and replay is not None:
        raise UsageError.single("--record and --replay cannot be combined",
                                fix="record a run with --record DIR, then replay it with --replay DIR")
    if replay_tools and replay is None:
        raise UsageError.single("--replay-tools needs --replay DIR", fix="add --replay DIR, or drop --replay-tools")
    for option, value in (("--record", record), ("--replay", replay)):
        if value is not None and not value.strip():
            raise UsageError.single(f"{option} needs a directory", fix=f"pass one, e.g. {option} cassettes/run1")


def fork_stored_session(session_id: str, at_turn: int | None) -> str:
    """Copy the stored session (up to ``at_turn``) into a new one and return its id; the original is unchanged."""
    from ..config.paths import AmplifierPaths
    from ..errors import ConfigError
    from ..sessions.store import AmbiguousSessionIdError, SessionNotFoundError
    from ..sessions.store.fork import fork_session
    from ..sessions.store.locations import session_store_for

    paths = AmplifierPaths.discover()
    store = session_store_for(paths)
    try:
        source = store.find(session_id)
    except (SessionNotFoundError, AmbiguousSessionIdError) as error:
        raise ConfigError.single(str(error)) from None
    try:
        return fork_session(store, source, at_turn=at_turn, cwd=paths.cwd).session_id
    except ValueError as error:
        raise ConfigError.single(f"cannot fork {source.session_id}: {error}",
                                 fix=f"see its turns with `amplifier session show {source.session_id[:8]}`") from None


def _budget(max_turns: int | None, max_total_tokens: int | None, max_cost: str | None) -> Any:
    """The command line's limits (sessions.budget.Budget), or None when none is given."""
    from ..errors import UsageError

    if max_turns is None and max_total_tokens is None and max_cost is None:
        return None
    from ..config.money import parse_cost
    from ..sessions.budget import Budget

    if max_total_tokens is not None and max_total_tokens < 1:
        raise UsageError.single("--max-total-tokens must be at least 1", fix="e.g. --max-total-tokens 200000")
    try:
        cost = parse_cost(max_cost)
    except ValueError:
        raise UsageError.single(f"--max-cost must be an amount in USD above 0, not '{max_cost}'",
                                fix="e.g. --max-cost 2.50") from None
    return Budget(max_turns=max_turns, max_total_tokens=max_total_tokens, max_cost=cost)


def _first_run_setup() -> None:
    """The chat with no usable provider anywhere: run `amplifier init`'s setup first (upstream does the same)."""
    from ..ui.first_run import SetupChoice, first_run_needed, run_setup

    if first_run_needed():
        run_setup(SetupChoice())
        sys.stdout.write("Starting the chat...\n")


def _check_new_session_id(session_id: str) -> None:
    """Session ids are UUIDs; anything else (e.g. a path like ../x) is refused before touching the store."""
    import uuid

    from ..errors import UsageError

    try:
        canonical = str(uuid.UUID(session_id)) == session_id.lower()
    except ValueError:
        canonical = False
    if not canonical:
        raise UsageError.single(
            f"--session-id must be a UUID, not '{session_id}'",
            fix="omit --session-id to get a new id, or pass one made by `uuidgen`",
        )


def _latest_session_id() -> str:
    from ..config.paths import AmplifierPaths
    from ..errors import ConfigError
    from ..sessions.store.locations import project_key, session_store_for

    paths = AmplifierPaths.discover()
    latest = session_store_for(paths).latest(project_key(paths))
    if latest is None:
        raise ConfigError.single(
            f"no session to continue in {project_key(paths)}",
            fix='start one with `amplifier run "..."`, or see `amplifier session list --all-projects`',
        )
    return latest.session_id


def start_reporting_failures(options: dict[str, Any]) -> int:
    """`start(**options)` ended as the Typer app ends a command: a failure becomes its message and exit code
    (`errors.report_failure`), Ctrl-C before the session takes over becomes "Aborted!" and 1."""
    from ..errors import AmplifierError, report_failure

    try:
        return start(**options)
    except (AmplifierError, OSError) as error:
        return report_failure(error)
    except KeyboardInterrupt:
        sys.stderr.write("\nAborted!\n")
        return 1


def start_acp(*, profile: str | None = None, provider: str | None = None, model: str | None = None,
              sandbox: str | None = None, approval: str = DEFAULT_APPROVAL, mode: str | None = None) -> int:
    """`amplifier acp`: serve an editor on stdin/stdout (ui/acp); the options apply to every session it opens."""
    _check_choices(approval=approval, sandbox=sandbox, mode=mode)
    from ..ui.acp import AcpOptions, run_acp

    return run_acp(AcpOptions(profile=profile, provider=provider, model=model, sandbox=sandbox, approval=approval,
                              mode=mode or SESSION_MODES[0]))


def start_acp_reporting_failures(options: dict[str, Any]) -> int:
    """`start_acp(**options)` with a bad option ending as the Typer app ends a command (message, exit 2)."""
    from ..errors import AmplifierError, report_failure

    try:
        return start_acp(**options)
    except AmplifierError as error:
        return report_failure(error)
