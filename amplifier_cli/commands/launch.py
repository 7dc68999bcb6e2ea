"""Starting a session from the command line: what `amplifier run`, `continue`, `session resume` and the bare
`amplifier` chat share once their options are parsed (REPL or one-shot, checks of the option values).

Free of typer: bare `amplifier` in a terminal, and `amplifier run` / `continue` in the plain forms `run_argv`
reads, start from here without importing typer at all (see `amplifier_cli/__main__.py`).
"""

from __future__ import annotations

import sys
from typing import Any

OUTPUT_FORMATS = ("text", "json", "stream-json")
APPROVAL_MODES = ("ask", "allow", "deny")
SANDBOX_MODES = ("workspace-write", "read-only", "off")
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
) -> int:
    """Shared by run/continue/session resume: pick REPL or one-shot, then run it."""
    from ..errors import UsageError

    _check_choice(output_format, OUTPUT_FORMATS, "--output-format")
    _check_choice(approval, APPROVAL_MODES, "--approval")
    if sandbox is not None:
        _check_choice(sandbox, SANDBOX_MODES, "--sandbox")
    if max_turns is not None and max_turns < 1:
        raise UsageError.single("--max-turns must be at least 1", fix="pass a positive number, e.g. --max-turns 10")
    if max_tokens is not None and max_tokens < 1:
        raise UsageError.single("--max-tokens must be at least 1", fix="pass a positive number, e.g. --max-tokens 500")
    if resume and session_id:
        raise UsageError.single(
            "--resume and --session-id cannot be combined",
            fix="use --resume ID to continue a session, --session-id ID to name a new one",
        )
    if session_id is not None:
        _check_new_session_id(session_id)
    if continue_latest:
        resume = _latest_session_id()
    text = compose_prompt(prompt)

    from ..sessions.request import SessionRequest

    request = SessionRequest(profile=profile, provider=provider, model=model, session_id=session_id, resume_id=resume,
                             sandbox=sandbox, max_tokens=max_tokens)
    if text is None:
        if sys.stdin is not None and sys.stdin.isatty():
            from ..ui.repl import run_repl

            if profile is None and provider is None and resume is None:
                _first_run_setup()

            return run_repl(request, approval=approval)
        raise UsageError.single(
            "no prompt given and stdin is not a terminal", fix='pass a prompt: amplifier run "..." (or pipe one in)'
        )
    from ..ui.oneshot import OneShotOptions, run_one_shot_sync

    options = OneShotOptions(
        prompt=text,
        output_format=output_format,
        approval=approval,  # type: ignore[arg-type]
        max_turns=max_turns,
    )
    return run_one_shot_sync(request, options)


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
