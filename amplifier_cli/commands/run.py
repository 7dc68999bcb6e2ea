"""`amplifier run` and `amplifier continue`: one-shot prompts, or the REPL when there is no prompt and a
terminal on stdin."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

OUTPUT_FORMATS = ("text", "json", "stream-json")
APPROVAL_MODES = ("ask", "allow", "deny")
SANDBOX_MODES = ("workspace-write", "read-only", "off")
DEFAULT_OUTPUT_FORMAT = OUTPUT_FORMATS[0]
DEFAULT_APPROVAL = APPROVAL_MODES[0]

# Options that run, continue and session resume declare alike (same flags and help; defaults above).
ModelOption = Annotated[str | None, typer.Option("--model", "-m", help="Model for the provider.")]
OutputFormatOption = Annotated[str, typer.Option("--output-format", "-o", help="text, json or stream-json.")]
ApprovalOption = Annotated[str, typer.Option("--approval", help="ask, allow or deny tool approvals.")]
SandboxOption = Annotated[str | None, typer.Option(
    "--sandbox", help="Sandbox of shell commands: workspace-write, read-only or off (default: the profile's).")]
RebuildProfileOption = Annotated[
    str | None, typer.Option("--profile", "-P", help="Profile to rebuild the session with.")
]


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
                             sandbox=sandbox)
    if text is None:
        if sys.stdin is not None and sys.stdin.isatty():
            from ..ui.repl import run_repl

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


def register(root: typer.Typer) -> None:
    @root.command("run")
    def run(
        prompt: str = typer.Argument(None, help="The prompt. Piped stdin is appended; none + terminal = REPL."),
        profile: str = typer.Option(None, "--profile", "-P", help="Profile to use."),
        provider: str = typer.Option(None, "--provider", help="Provider of the profile to use (e.g. anthropic)."),
        model: ModelOption = None,
        resume: str = typer.Option(None, "--resume", "-r", help="Resume the session with this id (or prefix)."),
        session_id: str = typer.Option(None, "--session-id", help="Id for the new session."),
        output_format: OutputFormatOption = DEFAULT_OUTPUT_FORMAT,
        approval: ApprovalOption = DEFAULT_APPROVAL,
        max_turns: int = typer.Option(None, "--max-turns", help="Most model calls in this turn."),
        sandbox: SandboxOption = None,
    ) -> None:
        """Run a prompt (one-shot), or start the interactive chat when no prompt is given."""
        raise typer.Exit(
            start(
                prompt,
                profile=profile,
                provider=provider,
                model=model,
                resume=resume,
                session_id=session_id,
                output_format=output_format,
                approval=approval,
                max_turns=max_turns,
                sandbox=sandbox,
            )
        )

    @root.command("continue")
    def continue_(
        prompt: str = typer.Argument(None, help="The prompt; without one (in a terminal) the chat resumes."),
        profile: RebuildProfileOption = None,
        provider: str = typer.Option(None, "--provider", help="Provider to use."),
        model: ModelOption = None,
        output_format: OutputFormatOption = DEFAULT_OUTPUT_FORMAT,
        approval: ApprovalOption = DEFAULT_APPROVAL,
        sandbox: SandboxOption = None,
    ) -> None:
        """Resume the most recent session of this project."""
        raise typer.Exit(
            start(
                prompt,
                profile=profile,
                provider=provider,
                model=model,
                output_format=output_format,
                approval=approval,
                continue_latest=True,
                sandbox=sandbox,
            )
        )


__all__: list[Any] = ["register", "start"]
