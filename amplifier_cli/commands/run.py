"""`amplifier run` and `amplifier continue`: one-shot prompts, or the REPL when there is no prompt and a
terminal on stdin. The Typer declarations; what they start is in `launch`."""

from __future__ import annotations

from typing import Any

import typer

from .launch import DEFAULT_APPROVAL, DEFAULT_OUTPUT_FORMAT, start
from .session_options import (
    ApprovalOption,
    MaxCostOption,
    MaxTotalTokensOption,
    MaxTurnsOption,
    ModelOption,
    ModeOption,
    OutputFormatOption,
    SandboxOption,
    with_resume_options,
)


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
        max_turns: MaxTurnsOption = None,
        max_total_tokens: MaxTotalTokensOption = None,
        max_cost: MaxCostOption = None,
        max_tokens: int = typer.Option(None, "--max-tokens", help="Largest answer per response, in tokens."),
        sandbox: SandboxOption = None,
        mode: ModeOption = None,
        record: str = typer.Option(None, "--record", help="Record every provider call to a cassette in this dir."),
        replay: str = typer.Option(None, "--replay", help="Answer provider calls from the cassette in this dir."),
        replay_tools: bool = typer.Option(False, "--replay-tools", help="With --replay: replay tool results too."),
        fork: bool = typer.Option(False, "--fork", help="With --resume: resume into a copy; the original stays."),
        images: list[str] = typer.Option(None, "--image", help="Attach a PNG, JPEG, GIF or WebP image (repeatable)."),
        worktree: str = typer.Option(None, "--worktree", metavar="[NAME]",
                                     help="Work in a new git worktree on a new branch from HEAD (NAME, or a "
                                          "generated one); --worktree=NAME, or the prompt first, is never "
                                          "ambiguous."),
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
                max_total_tokens=max_total_tokens,
                max_cost=max_cost,
                max_tokens=max_tokens,
                sandbox=sandbox,
                mode=mode,
                record=record,
                replay=replay,
                replay_tools=replay_tools,
                fork=fork,
                images=list(images) if images else None,
                worktree=worktree,
            )
        )

    @root.command("continue")
    @with_resume_options
    def continue_(
        prompt: str = typer.Argument(None, help="The prompt; without one (in a terminal) the chat resumes."),
        *,
        options: dict[str, Any],
    ) -> None:
        """Resume the most recent session of this project."""
        raise typer.Exit(start(prompt, continue_latest=True, **options))


__all__: list[Any] = ["register", "start"]
