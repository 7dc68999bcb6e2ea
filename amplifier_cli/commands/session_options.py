"""The options of a command that starts or resumes a session, declared once: `run` uses the single options, and
`continue`, `session resume` and `resume` take the whole set through `with_resume_options` (so a flag added here
reaches all three, and none of them can fall behind the others)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any

import typer

from .launch import DEFAULT_APPROVAL, DEFAULT_OUTPUT_FORMAT

ModelOption = Annotated[str | None, typer.Option("--model", "-m", help="Model for the provider.")]
OutputFormatOption = Annotated[str, typer.Option("--output-format", "-o", help="text, json or stream-json.")]
ApprovalOption = Annotated[str, typer.Option("--approval", help="ask, allow or deny tool approvals.")]
SandboxOption = Annotated[str | None, typer.Option(
    "--sandbox", help="Sandbox of shell commands: workspace-write, read-only or off (default: the profile's).")]
ModeOption = Annotated[str | None, typer.Option(
    "--mode", help="plan: the model may read and think, but no tool call that writes or runs commands; "
                   "accept-edits: file edits run without asking (protected places still asked).")]
MaxTurnsOption = Annotated[int | None, typer.Option("--max-turns", help="Most model calls in one turn.")]
MaxTotalTokensOption = Annotated[int | None, typer.Option(
    "--max-total-tokens", help="Stop (exit 3) once the session, sub-agents included, used this many tokens.")]
MaxCostOption = Annotated[str | None, typer.Option(
    "--max-cost", help="Stop (exit 3) once the session, sub-agents included, cost this many USD.")]
RebuildProfileOption = Annotated[
    str | None, typer.Option("--profile", "-P", "--bundle", "-B", help="Profile (bundle) to rebuild the session with.")
]
ResumeProviderOption = Annotated[str | None, typer.Option("--provider", "-p", help="Provider to use.")]
ForkOption = Annotated[bool, typer.Option("--fork", help="Resume into a copy of the session; the original stays.")]

_KEYWORD = inspect.Parameter.KEYWORD_ONLY
RESUME_OPTIONS: tuple[inspect.Parameter, ...] = (
    inspect.Parameter("profile", _KEYWORD, default=None, annotation=RebuildProfileOption),
    inspect.Parameter("provider", _KEYWORD, default=None, annotation=ResumeProviderOption),
    inspect.Parameter("model", _KEYWORD, default=None, annotation=ModelOption),
    inspect.Parameter("output_format", _KEYWORD, default=DEFAULT_OUTPUT_FORMAT, annotation=OutputFormatOption),
    inspect.Parameter("approval", _KEYWORD, default=DEFAULT_APPROVAL, annotation=ApprovalOption),
    inspect.Parameter("max_turns", _KEYWORD, default=None, annotation=MaxTurnsOption),
    inspect.Parameter("max_total_tokens", _KEYWORD, default=None, annotation=MaxTotalTokensOption),
    inspect.Parameter("max_cost", _KEYWORD, default=None, annotation=MaxCostOption),
    inspect.Parameter("sandbox", _KEYWORD, default=None, annotation=SandboxOption),
    inspect.Parameter("mode", _KEYWORD, default=None, annotation=ModeOption),
    inspect.Parameter("fork", _KEYWORD, default=False, annotation=ForkOption),
)
"""What resuming a session takes (each a keyword of `launch.start`)."""


def with_resume_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Give `command` (whose own parameters are its arguments) every option of RESUME_OPTIONS; it receives them
    as one `options` dict, ready to pass on to `launch.start(**options)`."""
    own = [parameter for name, parameter in inspect.signature(command, eval_str=True).parameters.items()
           if name != "options"]
    names = [parameter.name for parameter in RESUME_OPTIONS]

    @functools.wraps(command)
    def with_options(*args: Any, **kwargs: Any) -> Any:
        options = {name: kwargs.pop(name) for name in names if name in kwargs}
        return command(*args, options=options, **kwargs)

    with_options.__signature__ = inspect.Signature([*own, *RESUME_OPTIONS])  # type: ignore[attr-defined]
    with_options.__annotations__ = {parameter.name: parameter.annotation for parameter in [*own, *RESUME_OPTIONS]}
    return with_options
