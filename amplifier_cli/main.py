"""The `amplifier` command: a Typer app whose command groups live one per file in `amplifier_cli/commands/`.

Adding a command group is one line: put `register(root)` in `amplifier_cli/commands/<name>.py` and add
`"<name>"` to COMMAND_MODULES below. Keep module-level imports of command files to `typer` only; import
everything else inside the command functions so `--help`/`--version` stay fast.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from . import __version__

# One entry per file in amplifier_cli/commands/ (each defines `register(root: typer.Typer) -> None`).
COMMAND_MODULES: tuple[str, ...] = (
    "profile", "module", "source", "run", "session", "agents", "mcp", "trust", "acp",
    # upstream Amplifier users' commands (issue 27)
    "bundle", "provider", "tool", "init", "resume", "dirs", "notify", "update", "routing", "worktree",
)


class AmplifierGroup(TyperGroup):
    """Turns AmplifierError anywhere below into a short message on stderr and its exit code (2 config, 1 runtime);
    a traceback only with --verbose."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """`amplifier "prompt"`: the prompt words are taken out before click looks for a command
        (commands/prompt_argv.py says which words are a prompt); the root opens the chat with them."""
        from .commands.prompt_argv import split_prompt

        args, prompt = split_prompt(list(args), self.list_commands(ctx))
        if prompt is not None:
            ctx.meta["chat_prompt"] = prompt
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        from .errors import AmplifierError, report_failure

        try:
            return super().invoke(ctx)
        except (AmplifierError, OSError) as exc:  # BrokenPipeError included: see report_failure
            verbose = bool(ctx.obj.get("verbose")) if isinstance(ctx.obj, dict) else False
            raise typer.Exit(report_failure(exc, verbose=verbose)) from None


_APP_SETTINGS: dict[str, Any] = {
    "name": "amplifier",
    "cls": AmplifierGroup,
    "help": "Run AI agents assembled from modules, described by YAML profiles (mount plans).",
    "no_args_is_help": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
    "context_settings": {"help_option_names": ["-h", "--help"]},
}
app = typer.Typer(**_APP_SETTINGS)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"amplifier {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version_callback, is_eager=True, help="Show the version and exit."
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show tracebacks and debug detail on errors."),
    profile: str = typer.Option(None, "--profile", "-P", help="Chat with this profile."),
    provider: str = typer.Option(None, "--provider", help="Chat with this provider of the profile (e.g. openai)."),
    model: str = typer.Option(None, "--model", "-m", help="Chat with this model."),
    resume: str = typer.Option(None, "--resume", "-r", help="Resume the chat with this session id (or prefix)."),
    approval: str = typer.Option("ask", "--approval", help="ask, allow or deny tool approvals."),
    sandbox: str = typer.Option(
        None, "--sandbox", help="Sandbox of the chat's shell commands: workspace-write, read-only or off."),
    worktree: str = typer.Option(None, "--worktree", metavar="[NAME]",
                                 help="Chat in a new git worktree on a new branch from HEAD (a generated name, or "
                                      "--worktree=NAME)."),
) -> None:
    """Run AI agents assembled from modules, described by YAML profiles (mount plans).

    Without a command: the interactive chat (the options above choose its profile, provider, model or session).
    `amplifier "PROMPT"` opens the chat with PROMPT as its first message; when stdin or stdout is not a terminal
    it answers PROMPT once, as `amplifier run "PROMPT"` does.
    """
    ctx.obj = {"verbose": verbose}
    chat_options: dict[str, Any] = {"profile": profile, "provider": provider, "model": model, "resume": resume,
                                    "sandbox": sandbox, "worktree": worktree}
    chosen = any(value is not None for value in chat_options.values()) or approval != "ask"
    if ctx.invoked_subcommand is not None:
        if chosen:
            from .errors import UsageError

            raise UsageError.single(
                f"chat options go after the command: amplifier {ctx.invoked_subcommand} --profile ... "
                "(before a command they only apply to the chat)",
                fix=f"move them after '{ctx.invoked_subcommand}', or drop the command to open the chat",
            )
        return
    from .commands.launch import in_a_terminal, start

    prompt = ctx.meta.get("chat_prompt")
    if prompt is not None:
        raise typer.Exit(start(prompt, approval=approval, chat=True, **chat_options))
    if in_a_terminal() or chosen:
        # the interactive chat, as `amplifier run` without a prompt (piped stdin with options: one turn)
        raise typer.Exit(start(None, approval=approval, **chat_options))
    typer.echo(ctx.get_help())


# command name -> the commands and groups its file registers (a Typer holding just those)
_PARTS: dict[str, typer.Typer] = {}
# the root's options that take a value: skipped when looking for the command a line names
_ROOT_VALUE_OPTIONS = frozenset({"--profile", "-P", "--provider", "--model", "-m", "--resume", "-r", "--approval",
                                 "--sandbox", "--worktree"})
_ROOT_FLAGS = frozenset({"--verbose", "-v"})


def _register_command_modules() -> None:
    import importlib

    from typer.main import get_command_name

    for name in COMMAND_MODULES:
        part = typer.Typer()
        importlib.import_module(f"amplifier_cli.commands.{name}").register(part)
        for command in part.registered_commands:
            _PARTS[command.name or get_command_name(command.callback.__name__)] = part  # type: ignore[union-attr]
        for group in part.registered_groups:
            _PARTS[str(group.name or group.typer_instance.info.name)] = part  # type: ignore[union-attr]
        app.registered_commands.extend(part.registered_commands)
        app.registered_groups.extend(part.registered_groups)


_register_command_modules()


def _command_named(arguments: list[str]) -> str | None:
    """The command a command line names after the root's options, or None (help, the chat, anything unusual)."""
    index = 0
    while index < len(arguments):
        word = arguments[index]
        if word in _ROOT_VALUE_OPTIONS:
            index += 2
        elif word in _ROOT_FLAGS or word.split("=", 1)[0] in _ROOT_VALUE_OPTIONS:
            index += 1
        else:
            return word if word in _PARTS else None
    return None


def app_for(arguments: list[str]) -> typer.Typer:
    """The app, with only the commands of the file that defines the command ``arguments`` name, when they name
    one: Typer turns every registered command into a click command on each call (about 70 commands, 60-100 ms),
    which `amplifier session list` and the like would pay for nothing. Help, the chat and errors get the whole
    app."""
    name = _command_named(arguments)
    if name is None:
        return app
    only = typer.Typer(**_APP_SETTINGS)
    only.registered_callback = app.registered_callback
    only.registered_commands.extend(_PARTS[name].registered_commands)
    only.registered_groups.extend(_PARTS[name].registered_groups)
    return only


def main() -> None:
    """Console-script entry point."""
    import sys

    from .commands.run_argv import with_worktree_values

    arguments = with_worktree_values(sys.argv[1:])
    if _command_named(arguments) in (None, "run"):  # `--worktree [NAME]`: the chat's and run's optional value
        sys.argv[1:] = arguments
    app_for(sys.argv[1:])(prog_name="amplifier")
