"""`amplifier run` and `amplifier continue`: one-shot prompts, or the REPL when there is no prompt and a
terminal on stdin. The Typer declarations; what they start is in `launch`."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from .launch import DEFAULT_APPROVAL, DEFAULT_OUTPUT_FORMAT, start

# Options that run, continue and session resume declare alike (same flags and help; defaults above).
ModelOption = Annotated[str | None, typer.Option("--model", "-m", help="Model for the provider.")]
OutputFormatOption = Annotated[str, typer.Option("--output-format", "-o", help="text, json or stream-json.")]
ApprovalOption = Annotated[str, typer.Option("--approval", help="ask, allow or deny tool approvals.")]
SandboxOption = Annotated[str | None, typer.Option(
    "--sandbox", help="Sandbox of shell commands: workspace-write, read-only or off (default: the profile's).")]
RebuildProfileOption = Annotated[
    str | None, typer.Option("--profile", "-P", "--bundle", "-B", help="Profile (bundle) to rebuild the session with.")
]


def register(root: typer.Typer) -> None:
    @root.command("run")
    def run(
        prompt: str = typer.Argument(None, help="The prompt. Piped stdin is appended; none + terminal = REPL."),
        profile: str = typer.Option(None, "--profile", "-P", "--bundle", "-B",
                                    help="Profile (or bundle: same thing) to use."),
        provider: str = typer.Option(None, "--provider", "-p", help="Provider of the profile to use (e.g. anthropic)."),
        model: ModelOption = None,
        resume: str = typer.Option(None, "--resume", "-r", help="Resume the session with this id (or prefix)."),
        session_id: str = typer.Option(None, "--session-id", help="Id for the new session."),
        output_format: OutputFormatOption = DEFAULT_OUTPUT_FORMAT,
        approval: ApprovalOption = DEFAULT_APPROVAL,
        max_turns: int = typer.Option(None, "--max-turns", help="Most model calls in this turn."),
        max_tokens: int = typer.Option(None, "--max-tokens", help="Largest answer per response, in tokens."),
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
                max_tokens=max_tokens,
                sandbox=sandbox,
            )
        )

    @root.command("continue")
    def continue_(
        prompt: str = typer.Argument(None, help="The prompt; without one (in a terminal) the chat resumes."),
        profile: RebuildProfileOption = None,
        provider: str = typer.Option(None, "--provider", "-p", help="Provider to use."),
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
